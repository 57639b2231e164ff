/**
 * doc2 "Event" field rules with the real 1.35 validation (wire-facts §7): table-driven
 * boundaries, then a property: random Events, valid or with violations, must be accepted
 * exactly when the suite's own oracle says so, and refused with 422 naming every violated
 * field. A failure shrinks to a minimal Event.
 */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { microTime } from "../../fixtures/objects.js";
import type { ApiResponse } from "../../lib/harness/client.js";
import { apiVersionOf, resourcePath } from "../../lib/harness/resources.js";
import type { RuleId } from "../../lib/spec/catalog.js";
import { check, useSuite } from "../support/conformance.js";
import { expectedCreateViolations, violatedFields } from "../support/event-oracle.js";
import { assertProperty } from "../support/properties.js";

const suite = useSuite("event-validation");
type Obj = Record<string, unknown>;

let seq = 0;
function base(ns: string): Obj {
  seq += 1;
  return {
    apiVersion: apiVersionOf(suite.session.types.events),
    kind: "Event",
    metadata: { name: `v-${Date.now().toString(36)}-${seq}`, namespace: ns },
    eventTime: microTime(new Date()),
    reportingController: "tollgate.dev/validation",
    reportingInstance: "tollgate-1",
    action: "Validate",
    reason: "Checking",
    type: "Normal",
    regarding: { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "subject" },
    note: "validation case",
  };
}

async function post(event: Obj, ns: string): Promise<ApiResponse> {
  return suite.session.client.raw("POST", resourcePath(suite.session.types.events, ns), { body: event });
}

function causeFields(res: ApiResponse): string[] {
  const causes = (res.json as { details?: { causes?: { field?: string }[] } }).details?.causes ?? [];
  return [...new Set(causes.map((c) => c.field ?? ""))].sort();
}

/** JSON with sorted keys: a reference is the same whatever order the server writes its fields in. */
const canon = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x,
  );

/** Posts an Event and checks the answer against the oracle; returns a description of any disagreement. */
async function judge(event: Obj, ns: string): Promise<string | undefined> {
  const want = violatedFields(expectedCreateViolations(event, ns));
  const res = await post(event, ns);
  if (want.length === 0) {
    if (res.code !== 201) return `valid Event refused with ${res.code}: ${res.text.slice(0, 300)}`;
    // An accepted Event must keep the references it was written with.
    const made = res.json as Obj;
    for (const k of ["regarding", "related"])
      if (canon(made[k]) !== canon(event[k])) return `${k} written as ${JSON.stringify(event[k])}, returned as ${JSON.stringify(made[k])}`;
    return undefined;
  }
  if (res.code !== 422) return `invalid Event (${want.join(", ")}) answered ${res.code}: ${res.text.slice(0, 200)}`;
  const got = causeFields(res);
  const body = res.json as { kind?: string; reason?: string; details?: { kind?: string; group?: string } };
  if (body.reason !== "Invalid" || body.details?.kind !== "Event" || body.details.group)
    return `422 body is not an Invalid Status for kind Event without group: ${res.text.slice(0, 200)}`;
  return JSON.stringify(got) === JSON.stringify(want) ? undefined : `causes name ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
}

const x = (n: number): string => "x".repeat(n);
const e = (n: number): string => "é".repeat(n);

const cases: { title: string; rules: [RuleId, ...RuleId[]]; patch: (ev: Obj, ns: string) => Obj }[] = [
  { title: "a valid Event", rules: ["doc2.endpoints.create-success", "doc2.service.api-version-kind"], patch: (ev) => ev },
  {
    title: "eventTime missing",
    rules: ["doc2.event.event-time-required", "doc1.errors.missing-required-field"],
    patch: (ev) => ({ ...ev, eventTime: undefined }),
  },
  {
    title: "eventTime missing and regarding in another namespace",
    rules: ["doc2.event.namespace-l2"],
    patch: (ev) => ({ ...ev, eventTime: undefined, regarding: { kind: "Pod", name: "p", namespace: "elsewhere" } }),
  },
  {
    title: "eventTime missing and regarding without namespace",
    rules: ["doc2.event.namespace-l1"],
    patch: (ev) => ({ ...ev, eventTime: undefined, regarding: { kind: "Node", name: "n" } }),
  },
  {
    title: "regarding without namespace outside default and kube-system",
    rules: ["doc2.event.namespace-l3", "doc2.event.regarding-reference"],
    patch: (ev) => ({ ...ev, regarding: { kind: "Node", name: "n" } }),
  },
  {
    title: "regarding in another namespace is fine once eventTime is set",
    rules: ["doc2.event.regarding-reference", "doc2.event.related-reference"],
    patch: (ev) => ({ ...ev, regarding: { kind: "Pod", name: "p", namespace: "elsewhere" }, related: { kind: "Pod", name: "q", namespace: "elsewhere" } }),
  },
  { title: "reportingController empty", rules: ["doc2.event.reporting-controller-required"], patch: (ev) => ({ ...ev, reportingController: "" }) },
  {
    title: "reportingController not a qualified name",
    rules: ["doc2.event.reporting-controller-form"],
    patch: (ev) => ({ ...ev, reportingController: "Not/A/Name" }),
  },
  { title: "reportingInstance 128 bytes", rules: ["doc2.event.reporting-instance-max-128"], patch: (ev) => ({ ...ev, reportingInstance: x(128) }) },
  { title: "reportingInstance 129 bytes", rules: ["doc2.event.reporting-instance-max-128"], patch: (ev) => ({ ...ev, reportingInstance: x(129) }) },
  { title: "reportingInstance empty", rules: ["doc2.event.reporting-instance-required"], patch: (ev) => ({ ...ev, reportingInstance: "" }) },
  { title: "action 127 bytes", rules: ["doc2.event.action-max-128"], patch: (ev) => ({ ...ev, action: x(127) }) },
  { title: "action 128 bytes", rules: ["doc2.event.action-max-128"], patch: (ev) => ({ ...ev, action: x(128) }) },
  { title: "action 129 bytes", rules: ["doc2.event.action-max-128"], patch: (ev) => ({ ...ev, action: x(129) }) },
  { title: "action empty", rules: ["doc2.event.action-required"], patch: (ev) => ({ ...ev, action: "" }) },
  { title: "reason 128 bytes of two-byte characters", rules: ["doc2.event.reason-max-128"], patch: (ev) => ({ ...ev, reason: e(64) }) },
  { title: "reason 129 bytes with two-byte characters", rules: ["doc2.event.reason-max-128"], patch: (ev) => ({ ...ev, reason: `${e(64)}x` }) },
  { title: "reason empty", rules: ["doc2.event.reason-required"], patch: (ev) => ({ ...ev, reason: "" }) },
  { title: "note 1023 bytes", rules: ["doc2.event.note-max-1kb"], patch: (ev) => ({ ...ev, note: x(1023) }) },
  { title: "note 1024 bytes", rules: ["doc2.event.note-max-1kb"], patch: (ev) => ({ ...ev, note: x(1024) }) },
  { title: "note 1025 bytes", rules: ["doc2.event.note-max-1kb", "doc2.event.invalid-internal-names"], patch: (ev) => ({ ...ev, note: x(1025) }) },
  { title: "note of 342 three-byte characters (1026 bytes)", rules: ["doc2.event.note-max-1kb"], patch: (ev) => ({ ...ev, note: "€".repeat(342) }) },
  { title: "type Warning", rules: ["doc2.event.type-normal-warning"], patch: (ev) => ({ ...ev, type: "Warning" }) },
  { title: "type Info", rules: ["doc2.event.type-normal-warning"], patch: (ev) => ({ ...ev, type: "Info" }) },
  { title: "type empty", rules: ["doc2.event.type-required"], patch: (ev) => ({ ...ev, type: "" }) },
  {
    title: "series without count",
    rules: ["doc2.event.series-count-required"],
    patch: (ev) => ({ ...ev, series: { lastObservedTime: microTime(new Date()) } }),
  },
  {
    title: "series with count 2",
    rules: ["doc2.event.series-count-min-2"],
    patch: (ev) => ({ ...ev, series: { count: 2, lastObservedTime: microTime(new Date()) } }),
  },
  {
    title: "series with count 1",
    rules: ["doc2.event.series-count-min-2"],
    patch: (ev) => ({ ...ev, series: { count: 1, lastObservedTime: microTime(new Date()) } }),
  },
  { title: "series without lastObservedTime", rules: ["doc2.event.series-last-observed-required"], patch: (ev) => ({ ...ev, series: { count: 3 } }) },
  // One deprecated field at a time: each is refused on its own, at its internal (core) path.
  {
    title: "deprecatedCount set (refused at path count)",
    rules: ["doc2.event.deprecated-count", "doc2.event.invalid-internal-names"],
    patch: (ev) => ({ ...ev, deprecatedCount: 2 }),
  },
  {
    title: "deprecatedFirstTimestamp set (refused at path firstTimestamp)",
    rules: ["doc2.event.deprecated-first-timestamp", "doc2.event.invalid-internal-names"],
    patch: (ev) => ({ ...ev, deprecatedFirstTimestamp: "2026-01-01T00:00:00Z" }),
  },
  {
    title: "deprecatedLastTimestamp set (refused at path lastTimestamp)",
    rules: ["doc2.event.deprecated-last-timestamp", "doc2.event.invalid-internal-names"],
    patch: (ev) => ({ ...ev, deprecatedLastTimestamp: "2026-01-01T00:00:00Z" }),
  },
  {
    title: "deprecatedSource with a component set (refused at path source)",
    rules: ["doc2.event.deprecated-source", "doc2.event.invalid-internal-names"],
    patch: (ev) => ({ ...ev, deprecatedSource: { component: "c" } }),
  },
  {
    title: "deprecatedSource with a host set (refused at path source)",
    rules: ["doc2.event.deprecated-source"],
    patch: (ev) => ({ ...ev, deprecatedSource: { host: "h" } }),
  },
  {
    title: "name not a DNS subdomain",
    rules: ["doc2.event.name-dns-subdomain"],
    patch: (ev) => ({ ...ev, metadata: { ...(ev.metadata as Obj), name: "Bad_Name" } }),
  },
];

describe("Event validation, case by case", () => {
  for (const c of cases) {
    check({ title: c.title, rules: c.rules }, async () => {
      const { ns } = suite;
      const problem = await judge(c.patch(base(ns), ns), ns);
      expect(problem).toBeUndefined();
    });
  }

  check(
    {
      title: 'several violations at once: one 422 names each, and its length, type and series errors show the bad value as ""',
      rules: ["doc2.event.invalid-value-empty", "doc1.errors.422-invalid"],
    },
    async () => {
      const { ns } = suite;
      const ev: Obj = { ...base(ns), action: "", reason: x(200), type: "Info", series: { count: 0 } };
      expect(await judge(ev, ns)).toBeUndefined();
      const res = await post(ev, ns);
      const causes = (res.json as { details?: { causes?: { field?: string; message?: string }[] } }).details?.causes ?? [];
      const messages = (field: string): (string | undefined)[] => causes.filter((c) => c.field === field).map((c) => c.message);
      expect(messages("action")).toEqual(["Required value"]);
      expect(messages("reason")).toEqual(['Invalid value: "": can have at most 128 characters']);
      expect(messages("type")).toEqual(['Invalid value: "": has invalid value: Info']);
      expect(messages("series.count")).toEqual(['Invalid value: "": should be at least 2']);
    },
  );

  check(
    {
      title: 'the message of a 422 reads `Event "<name>" is invalid: …` with the bad value of a length error shown as ""',
      rules: ["doc2.event.invalid-value-empty", "doc2.event.invalid-internal-names"],
    },
    async () => {
      const { ns } = suite;
      const ev: Obj = { ...base(ns), reason: x(129) };
      const res = await post(ev, ns);
      expect(res.code).toBe(422);
      const name = (ev.metadata as Obj).name as string;
      expect((res.json as { message?: string }).message).toBe(`Event "${name}" is invalid: reason: Invalid value: "": can have at most 128 characters`);
    },
  );

  check({ title: "eventTime without exactly six fractional digits is a 400 decode error", rules: ["doc2.event.event-time-microtime"] }, async () => {
    const { ns } = suite;
    for (const t of ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123Z", "2026-01-01T00:00:00.123456789Z"]) {
      const res = await post({ ...base(ns), eventTime: t }, ns);
      expect(res.code, t).toBe(400);
      expect(res.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      // A decode error (wire-facts §4), not a validation one.
      expect((res.json as { message?: string }).message, t).toMatch(/^Event in version "v1" cannot be handled as a Event: /);
    }
  });
});

/**
 * The namespace rules (C1 required, L10 DNS-1123 subdomain) sit behind earlier layers on a real
 * server: the namespace always comes from the URL, a POST to the all-namespaces path is 405, a
 * malformed namespace in the URL is refused by namespace admission (404) and one in the body that
 * differs from the URL's is a 400, both before validation runs. A client checks those answers and
 * the outcome the rules exist for: no such Event is ever stored.
 */
describe("Event namespace", () => {
  check(
    {
      title: "an Event without a namespace is refused (the all-namespaces path takes no POST) and nothing is stored",
      rules: ["doc2.event.namespace-required"],
    },
    async () => {
      const { session, ns } = suite;
      const ev = base(ns);
      const { namespace: _dropped, ...meta } = ev.metadata as Obj;
      const res = await session.client.raw("POST", resourcePath(session.types.events), { body: { ...ev, metadata: meta } });
      expect(res.code, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.code).toBeLessThan(500);
      expect([405, 422], "405 from the path, or 422 `metadata.namespace: Required value` from validation").toContain(res.code);
      if (res.code === 422) expect(causeFields(res)).toContain("metadata.namespace");
      const listed = await session.client.list(session.types.events, ns, { fieldSelector: `metadata.name=${String(meta.name)}` });
      expect(listed.items).toEqual([]);
    },
  );

  check(
    {
      title:
        "an Event whose namespace is not a DNS-1123 subdomain is refused whichever way it is sent (404 in the URL, 400 in the body), and nothing is stored",
      rules: ["doc2.event.namespace-dns-subdomain"],
    },
    async () => {
      const { session, ns } = suite;
      const status = (res: ApiResponse) => res.json as { kind?: string; reason?: string; message?: string };
      for (const bad of ["Not_A_Subdomain", "UPPER", "dot.-dash"]) {
        // In the URL: namespace admission runs first and finds no such namespace (wire-facts §20).
        const ev = base(ns);
        const name = String((ev.metadata as Obj).name);
        const inUrl = await post({ ...ev, metadata: { ...(ev.metadata as Obj), namespace: bad } }, bad);
        expect(inUrl.code, `${bad} in the URL: ${inUrl.text.slice(0, 300)}`).toBe(404);
        expect(status(inUrl)).toMatchObject({ kind: "Status", reason: "NotFound", message: `namespaces "${bad}" not found` });
        // In the body, posted to a namespace that exists: refused as a mismatch before validation (wire-facts §7).
        const inBody = await post({ ...ev, metadata: { ...(ev.metadata as Obj), namespace: bad } }, ns);
        expect(inBody.code, `${bad} in the body: ${inBody.text.slice(0, 300)}`).toBe(400);
        expect(status(inBody)).toMatchObject({
          kind: "Status",
          reason: "BadRequest",
          message: "the namespace of the provided object does not match the namespace sent on the request",
        });
        const all = await session.client.list(session.types.events, undefined, { fieldSelector: `metadata.name=${name}` });
        expect(all.items, `${bad}: nothing stored`).toEqual([]);
      }
      // The same Event with the namespace of its URL is stored: the refusals above are about the namespace alone.
      const good = base(ns);
      const ok = await post(good, ns);
      expect(ok.code, ok.text.slice(0, 300)).toBe(201);
      expect(ok.json).toMatchObject({ metadata: { namespace: ns } });
    },
  );
});

type Mutation = (ev: Obj) => Obj;

const str = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom("a", "Z", "0", "-", "é", "€", " "), minLength: min, maxLength: max });

/** Ways to change a valid Event, by the field they touch: each may or may not make it invalid. */
const MUTATIONS = {
  eventTime: fc.constant<Mutation>((ev) => ({ ...ev, eventTime: undefined })),
  regarding: fc.constantFrom("", "other-ns").map(
    (r): Mutation =>
      (ev) => ({ ...ev, regarding: { kind: "Pod", name: "p", ...(r ? { namespace: r } : {}) } }),
  ),
  action: str(0, 140).map(
    (s): Mutation =>
      (ev) => ({ ...ev, action: s }),
  ),
  reason: str(0, 140).map(
    (s): Mutation =>
      (ev) => ({ ...ev, reason: s }),
  ),
  reportingInstance: str(0, 140).map(
    (s): Mutation =>
      (ev) => ({ ...ev, reportingInstance: s }),
  ),
  reportingController: fc.constantFrom("", "a/b/c", "UPPER.io/x", "ok.io/fine", "-x").map(
    (c): Mutation =>
      (ev) => ({ ...ev, reportingController: c }),
  ),
  note: fc.integer({ min: 1000, max: 1100 }).map(
    (n): Mutation =>
      (ev) => ({ ...ev, note: "n".repeat(n) }),
  ),
  type: fc.constantFrom("", "Info", "normal", "Warning").map(
    (t): Mutation =>
      (ev) => ({ ...ev, type: t }),
  ),
  series: fc.record({ count: fc.integer({ min: 0, max: 4 }), withTime: fc.boolean() }).map(
    ({ count, withTime }): Mutation =>
      (ev) => ({ ...ev, series: withTime ? { count, lastObservedTime: microTime(new Date()) } : { count } }),
  ),
  deprecated: fc
    .constantFrom(
      { deprecatedCount: 4 },
      { deprecatedSource: { host: "h" } },
      { deprecatedFirstTimestamp: "2026-01-01T00:00:00Z" },
      { deprecatedLastTimestamp: "2026-01-01T00:00:00Z" },
    )
    .map(
      (set): Mutation =>
        (ev) => ({ ...ev, ...set }),
    ),
} satisfies Record<string, fc.Arbitrary<Mutation>>;

type MutationKind = keyof typeof MUTATIONS;

/** A valid Event, then one to three changes of the given kinds; the oracle decides what the server must say. */
function eventArb(ns: string, kinds: readonly MutationKind[]): fc.Arbitrary<Obj> {
  return fc.array(fc.oneof(...kinds.map((k) => MUTATIONS[k])), { minLength: 1, maxLength: 3 }).map((ms) => ms.reduce((ev, m) => m(ev), base(ns)));
}

/** One property per field (or pair of fields whose rules interact), so each names only the rules it examines; then any mix. */
const properties: { title: string; rules: [RuleId, ...RuleId[]]; kinds: readonly MutationKind[]; numRuns: number }[] = [
  { title: "action", rules: ["doc2.event.action-required", "doc2.event.action-max-128"], kinds: ["action"], numRuns: 25 },
  { title: "reason", rules: ["doc2.event.reason-required", "doc2.event.reason-max-128"], kinds: ["reason"], numRuns: 25 },
  {
    title: "reportingInstance",
    rules: ["doc2.event.reporting-instance-required", "doc2.event.reporting-instance-max-128"],
    kinds: ["reportingInstance"],
    numRuns: 25,
  },
  {
    title: "reportingController",
    rules: ["doc2.event.reporting-controller-required", "doc2.event.reporting-controller-form"],
    kinds: ["reportingController"],
    numRuns: 15,
  },
  { title: "note (refused at path message)", rules: ["doc2.event.note-max-1kb", "doc2.event.invalid-internal-names"], kinds: ["note"], numRuns: 20 },
  { title: "type", rules: ["doc2.event.type-normal-warning", "doc2.event.type-required"], kinds: ["type"], numRuns: 15 },
  { title: "series", rules: ["doc2.event.series-count-min-2", "doc2.event.series-last-observed-required"], kinds: ["series"], numRuns: 20 },
  {
    title: "eventTime and the regarding namespace",
    rules: ["doc2.event.event-time-required", "doc2.event.namespace-l1", "doc2.event.namespace-l2", "doc2.event.namespace-l3"],
    kinds: ["eventTime", "regarding"],
    numRuns: 20,
  },
  {
    title: "deprecated fields",
    rules: ["doc2.event.deprecated-count", "doc2.event.deprecated-source", "doc2.event.deprecated-first-timestamp", "doc2.event.deprecated-last-timestamp"],
    kinds: ["deprecated"],
    numRuns: 20,
  },
  {
    title: "any mix of the above",
    rules: ["doc1.errors.422-invalid", "doc2.event.invalid-internal-names"],
    kinds: Object.keys(MUTATIONS) as MutationKind[],
    numRuns: 40,
  },
];

describe("Event validation, properties", () => {
  for (const p of properties) {
    check(
      {
        title: `property, ${p.title}: the target accepts exactly the Events the oracle accepts, and names every violated field`,
        rules: p.rules,
        timeout: 120_000,
      },
      async () => {
        const { ns } = suite;
        await assertProperty(
          fc.asyncProperty(eventArb(ns, p.kinds), async (ev) => {
            const problem = await judge(ev, ns);
            if (problem) throw new Error(`${problem}\nEvent: ${JSON.stringify(ev)}`);
          }),
          { numRuns: p.numRuns },
        );
      },
    );
  }
});
