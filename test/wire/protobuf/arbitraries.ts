/**
 * fast-check generators of valid JSON-form objects, in the canonical form the server serves
 * (so that encode -> decode must give them back exactly): omitempty fields are absent rather
 * than empty, zero times are null (or absent where omitzero), pointer fields absent or set,
 * maps with keys in Go's byte order, Go struct key order. Times are built with Date, not with
 * the codec's own formatter, so the round trip checks the codec against an independent source.
 */
import fc from "fast-check";

type Obj = Record<string, unknown>;

/** Drops the undefined values, keeping the key order. */
function compact(o: Record<string, unknown>): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

/** Any Unicode text (whole graphemes, so no lone surrogates, which Go would replace). */
export const text = fc.string({ unit: "grapheme", maxLength: 10 });
const nonEmptyText = fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 });

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const nonZeroInt32 = int32.filter((n) => n !== 0);
const int64 = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const nonZeroInt64 = int64.filter((n) => n !== 0);

// 0001-01-01T00:00:01Z .. 9999-12-31T23:59:59Z: everything but Go's zero time, which is null.
const seconds = fc.integer({ min: -62135596800 + 1, max: 253402300799 });
const isoSeconds = (s: number): string => new Date(s * 1000).toISOString().slice(0, 19);
export const time = seconds.map((s) => `${isoSeconds(s)}Z`);
export const microTime = fc.tuple(seconds, fc.integer({ min: 0, max: 999_999 })).map(([s, us]) => `${isoSeconds(s)}.${String(us).padStart(6, "0")}Z`);

function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** A non-empty map with keys in Go's order (set with defineProperty: a key may be "__proto__"). */
function map<T>(value: fc.Arbitrary<T>): fc.Arbitrary<Obj> {
  return fc.uniqueArray(fc.tuple(text, value), { minLength: 1, maxLength: 4, selector: ([k]) => k }).map((entries) => {
    const out: Obj = {};
    for (const [k, v] of [...entries].sort((a, b) => byUtf8(a[0], b[0]))) {
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  });
}

const base64 = fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString("base64"));

const fieldsV1 = fc
  .dictionary(
    fc.constantFrom("f:metadata", "f:labels", "f:data", ".", 'k:{"type":"Ready"}', "f:spec"),
    fc.dictionary(fc.constantFrom("f:a", "f:b", "."), fc.constant({}), { maxKeys: 2, noNullPrototype: true }),
    { maxKeys: 3, noNullPrototype: true },
  )
  // Through JSON once, so it is exactly what JSON.parse gives back.
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown);

const ownerReference = fc
  .record({
    apiVersion: text,
    kind: text,
    name: text,
    uid: text,
    controller: opt(fc.boolean()),
    blockOwnerDeletion: opt(fc.boolean()),
  })
  .map(compact);

const managedFieldsEntry = fc
  .record({
    manager: opt(nonEmptyText),
    operation: opt(fc.constantFrom("Apply", "Update")),
    apiVersion: opt(nonEmptyText),
    time: opt(time),
    fieldsType: opt(fc.constant("FieldsV1")),
    fieldsV1: opt(fieldsV1),
    subresource: opt(nonEmptyText),
  })
  .map(compact);

export const objectMeta = fc
  .record({
    name: opt(nonEmptyText),
    generateName: opt(nonEmptyText),
    namespace: opt(nonEmptyText),
    selfLink: opt(nonEmptyText),
    uid: opt(nonEmptyText),
    resourceVersion: opt(fc.integer({ min: 1 }).map(String)),
    generation: opt(nonZeroInt64),
    creationTimestamp: opt(time),
    deletionTimestamp: opt(time),
    deletionGracePeriodSeconds: opt(int64),
    labels: opt(map(text)),
    annotations: opt(map(text)),
    ownerReferences: opt(fc.array(ownerReference, { minLength: 1, maxLength: 2 })),
    finalizers: opt(fc.array(text, { minLength: 1, maxLength: 3 })),
    managedFields: opt(fc.array(managedFieldsEntry, { minLength: 1, maxLength: 2 })),
  })
  .map(compact);

const objectReference = fc
  .record({
    kind: opt(nonEmptyText),
    namespace: opt(nonEmptyText),
    name: opt(nonEmptyText),
    uid: opt(nonEmptyText),
    apiVersion: opt(nonEmptyText),
    resourceVersion: opt(nonEmptyText),
    fieldPath: opt(nonEmptyText),
  })
  .map(compact);

const eventSource = fc.record({ component: opt(nonEmptyText), host: opt(nonEmptyText) }).map(compact);

/** events.k8s.io/v1 (or v1beta1) Event. */
export const eventsEvent = fc
  .record({
    kind: fc.constant("Event"),
    apiVersion: fc.constantFrom("events.k8s.io/v1", "events.k8s.io/v1beta1"),
    metadata: objectMeta,
    eventTime: fc.option(microTime, { nil: null }),
    series: opt(fc.record({ count: int32, lastObservedTime: fc.option(microTime, { nil: null }) })),
    reportingController: opt(nonEmptyText),
    reportingInstance: opt(nonEmptyText),
    action: opt(nonEmptyText),
    reason: opt(nonEmptyText),
    regarding: objectReference,
    related: opt(objectReference),
    note: opt(nonEmptyText),
    type: opt(fc.constantFrom("Normal", "Warning")),
    deprecatedSource: eventSource,
    deprecatedFirstTimestamp: fc.option(time, { nil: null }),
    deprecatedLastTimestamp: fc.option(time, { nil: null }),
    deprecatedCount: opt(nonZeroInt32),
  })
  .map(compact);

/** core v1 Event. */
export const coreEvent = fc
  .record({
    kind: fc.constant("Event"),
    apiVersion: fc.constant("v1"),
    metadata: objectMeta,
    involvedObject: objectReference,
    reason: opt(nonEmptyText),
    message: opt(nonEmptyText),
    source: eventSource,
    firstTimestamp: fc.option(time, { nil: null }),
    lastTimestamp: fc.option(time, { nil: null }),
    count: opt(nonZeroInt32),
    type: opt(nonEmptyText),
    eventTime: fc.option(microTime, { nil: null }),
    series: opt(fc.record({ count: opt(nonZeroInt32), lastObservedTime: fc.option(microTime, { nil: null }) }).map(compact)),
    action: opt(nonEmptyText),
    related: opt(objectReference),
    reportingComponent: text,
    reportingInstance: text,
  })
  .map(compact);

export const configMap = fc
  .record({
    kind: fc.constant("ConfigMap"),
    apiVersion: fc.constant("v1"),
    metadata: objectMeta,
    immutable: opt(fc.boolean()),
    data: opt(map(text)),
    binaryData: opt(map(base64)),
  })
  .map(compact);

const namespaceCondition = fc
  .record({
    type: text,
    status: fc.constantFrom("True", "False", "Unknown", ""),
    lastTransitionTime: fc.option(time, { nil: null }),
    reason: opt(nonEmptyText),
    message: opt(nonEmptyText),
  })
  .map(compact);

export const namespace = fc.record({
  kind: fc.constant("Namespace"),
  apiVersion: fc.constant("v1"),
  metadata: objectMeta,
  spec: fc.record({ finalizers: opt(fc.array(text, { minLength: 1, maxLength: 3 })) }).map(compact),
  status: fc
    .record({
      phase: opt(fc.constantFrom("Active", "Terminating")),
      conditions: opt(fc.array(namespaceCondition, { minLength: 1, maxLength: 2 })),
    })
    .map(compact),
});

export const lease = fc.record({
  kind: fc.constant("Lease"),
  apiVersion: fc.constant("coordination.k8s.io/v1"),
  metadata: objectMeta,
  // Every LeaseSpec field is a pointer: set (even to "" or 0) or absent.
  spec: fc
    .record({
      holderIdentity: opt(text),
      leaseDurationSeconds: opt(int32),
      acquireTime: opt(microTime),
      renewTime: opt(microTime),
      leaseTransitions: opt(int32),
      strategy: opt(text),
      preferredHolder: opt(text),
    })
    .map(compact),
});

export const status = fc
  .record({
    kind: fc.constant("Status"),
    apiVersion: fc.constant("v1"),
    metadata: fc.record({ resourceVersion: opt(nonEmptyText), continue: opt(nonEmptyText) }).map(compact),
    status: opt(fc.constantFrom("Success", "Failure")),
    message: opt(nonEmptyText),
    reason: opt(nonEmptyText),
    details: opt(
      fc
        .record({
          name: opt(nonEmptyText),
          group: opt(nonEmptyText),
          kind: opt(nonEmptyText),
          uid: opt(nonEmptyText),
          causes: opt(
            fc.array(fc.record({ reason: opt(nonEmptyText), message: opt(nonEmptyText), field: opt(nonEmptyText) }).map(compact), {
              minLength: 1,
              maxLength: 2,
            }),
          ),
          retryAfterSeconds: opt(nonZeroInt32),
        })
        .map(compact),
    ),
    code: opt(nonZeroInt32),
  })
  .map(compact);

/** Any of the objects above. */
export const anyObject: fc.Arbitrary<Obj> = fc.oneof(eventsEvent, coreEvent, configMap, namespace, lease, status);
