/**
 * Faults of Event validation, update and the core↔events view (doc2 Event rules): emulator
 * failpoints in the Event validation (lib/emulator/registry/events/validation.ts) for what the
 * server accepts or refuses, wire faults for what it writes back.
 */
import type { EmulatorFault, Fault, WireFault } from "../types.js";
import { editJson } from "./wire-edits.js";

/** A request or response of the events.k8s.io/v1 Event resource (one namespace, all, or one Event). */
const EVENTS_PATH = /^\/apis\/events\.k8s\.io\/v1\/(namespaces\/[^/]+\/)?events(\/[^/?]+)?(\?|$)/;
const ONE_EVENT_PATH = /^\/apis\/events\.k8s\.io\/v1\/namespaces\/[^/]+\/events\/[^/?]+(\?|$)/;

type Obj = Record<string, unknown>;

/** Applies `edit` to the Event(s) of a JSON body: an Event, or every item of a list. */
const editEvents = (body: string, edit: (e: Obj) => void): string => {
  if (!body.trimStart().startsWith("{")) return body;
  return editJson(body, (o) => {
    if (o.kind === "Event") edit(o);
    else if (Array.isArray(o.items)) for (const i of o.items as Obj[]) edit(i);
  });
};

/** A wire fault that rewrites every Event events.k8s.io/v1 writes back: answers and watch events. */
function eventsRewrite(edit: (e: Obj) => void): WireFault["wire"] {
  return {
    response: (r) => (EVENTS_PATH.test(r.path) && r.code < 300 ? { ...r, body: editEvents(r.body, edit) } : r),
    watchLines: (path) => (line) => {
      if (!EVENTS_PATH.test(path) || !line.startsWith("{")) return line;
      return editJson(line, (ev) => {
        const object = ev.object as Obj | undefined;
        if (object?.kind === "Event") edit(object);
      });
    },
  };
}

const failpoint = (name: string, rules: EmulatorFault["rules"], models: string, reference?: string): EmulatorFault => ({
  name,
  mode: "emulator",
  rules,
  models,
  failpoints: [name],
  ...(reference ? { reference } : {}),
});

const EMULATOR: readonly EmulatorFault[] = [
  failpoint(
    "event-eventtime-optional",
    ["doc2.event.event-time-required"],
    "a server that runs only the legacy Event rules on events.k8s.io creates, so an Event without eventTime is stored",
  ),
  failpoint(
    "event-microtime-any-precision",
    ["doc2.event.event-time-microtime"],
    "a server whose MicroTime decoder takes any RFC 3339 precision (as lenient JSON time parsers do) instead of refusing what is not six fractional digits",
  ),
  failpoint(
    "event-regarding-namespace-unchecked",
    ["doc2.event.namespace-l1", "doc2.event.namespace-l2", "doc2.event.namespace-l3"],
    "a server that never compares involvedObject (regarding) namespace with the Event's namespace, as Kubernetes did before it validated the match",
    "https://github.com/kubernetes/kubernetes/issues/30530",
  ),
  failpoint(
    "event-strings-optional",
    ["doc2.event.action-required", "doc2.event.reason-required", "doc2.event.reporting-controller-required", "doc2.event.reporting-instance-required"],
    "a server that checks action, reason, reportingController and reportingInstance only when they are set (omitempty-style), so empty ones pass",
  ),
  failpoint(
    "event-reporting-controller-any-form",
    ["doc2.event.reporting-controller-form"],
    "a server that takes any non-empty reportingController instead of requiring a qualified name <domain>/<component>",
  ),
  failpoint(
    "event-length-limit-exclusive",
    ["doc2.event.action-max-128", "doc2.event.reporting-instance-max-128"],
    "an off-by-one in the Event length limits (len >= limit refused), so a 128-byte action or reportingInstance is refused",
  ),
  failpoint(
    "event-limits-count-characters",
    ["doc2.event.reason-max-128"],
    "a server that counts the Event length limits in characters (JavaScript string length) where Go counts bytes, so a 129-byte reason of 65 characters passes",
  ),
  failpoint("event-type-any", ["doc2.event.type-normal-warning"], "a server that takes any Event type (Info, normal…) instead of only Normal and Warning"),
  failpoint("event-type-empty-allowed", ["doc2.event.type-required"], "a server that checks the Event type only when it is set, so an empty type is stored"),
  failpoint(
    "event-deprecated-fields-allowed",
    ["doc2.event.deprecated-count", "doc2.event.deprecated-first-timestamp", "doc2.event.deprecated-last-timestamp", "doc2.event.deprecated-source"],
    "a server that lets events.k8s.io creates set the deprecated core fields (count, firstTimestamp, lastTimestamp, source), as core v1 does",
  ),
  failpoint("event-series-count-min-1", ["doc2.event.series-count-min-2"], "an off-by-one in the series lower bound: a series with count 1 is stored"),
  failpoint("event-series-last-observed-optional", ["doc2.event.series-last-observed-required"], "a server that stores a series without lastObservedTime"),
  failpoint(
    "event-name-path-segment",
    ["doc2.event.name-dns-subdomain"],
    "a server that checks events.k8s.io Event names with core v1's looser rule (a path segment), so Bad_Name is stored",
  ),
  failpoint(
    "event-length-errors-show-value",
    ["doc2.event.invalid-value-empty"],
    'a server whose Event length and type errors quote the bad value itself instead of "" as upstream prints them',
  ),
  failpoint(
    "event-update-skips-legacy-rules",
    ["doc2.event.update-legacy-rules"],
    "a server that validates Event updates by the immutable fields alone and does not re-run the legacy field rules (L1-L10)",
  ),
  failpoint(
    "event-series-immutable",
    ["doc2.event.update-mutable-fields"],
    "a server that treats series like the other Event fields (immutable), so a reporter cannot bump a series",
  ),
  failpoint(
    "event-series-step-by-one",
    ["doc2.event.series-cadence-reporter"],
    "a server that imposes its own series cadence (count must grow by one per update) where the reporter decides",
  ),
  failpoint(
    "event-immutable-skips-references",
    ["doc2.event.immutable-regarding", "doc2.event.immutable-related"],
    "a server whose immutable-field list for Event updates leaves out the object references (the events.k8s.io/v1 draft validated updates with the create rules only)",
    "https://github.com/kubernetes/kubernetes/pull/91645",
  ),
  failpoint(
    "event-immutable-skips-texts",
    ["doc2.event.immutable-reason", "doc2.event.immutable-note", "doc2.event.immutable-action", "doc2.event.immutable-type"],
    "a server whose immutable-field list for Event updates leaves out reason, note (message), action and type",
    "https://github.com/kubernetes/kubernetes/pull/91645",
  ),
  failpoint(
    "event-immutable-skips-reporter",
    ["doc2.event.immutable-event-time", "doc2.event.immutable-reporting-controller", "doc2.event.immutable-reporting-instance"],
    "a server whose immutable-field list for Event updates leaves out the fields new in events.k8s.io (eventTime, reportingController, reportingInstance)",
    "https://github.com/kubernetes/kubernetes/pull/91645",
  ),
  failpoint(
    "event-immutable-skips-deprecated",
    [
      "doc2.event.immutable-deprecated-source",
      "doc2.event.immutable-deprecated-first-timestamp",
      "doc2.event.immutable-deprecated-last-timestamp",
      "doc2.event.immutable-deprecated-count",
    ],
    "a server whose immutable-field list for Event updates leaves out the deprecated core fields (source, firstTimestamp, lastTimestamp, count)",
  ),
  failpoint(
    "event-write-drops-deprecated",
    ["doc2.service.shared-with-core"],
    "a server whose events.k8s.io write path has no place for the deprecated core fields, so an update through events.k8s.io wipes a core Event's source, timestamps and count",
  ),
];

/** The Event field names of events.k8s.io for the internal (core) paths a real server names in its errors. */
const EXTERNAL_NAMES: readonly [string, string][] = [
  ["involvedObject", "regarding"],
  ["message", "note"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
];
const external = (field: string): string => {
  for (const [core, events] of EXTERNAL_NAMES) if (field === core || field.startsWith(`${core}.`)) return events + field.slice(core.length);
  return field;
};

const WIRE: readonly WireFault[] = [
  {
    name: "event-time-without-micros",
    mode: "wire",
    rules: ["doc2.event.event-time-microtime"],
    models: "a server that writes eventTime as a metav1.Time (whole seconds) instead of a MicroTime with six fractional digits",
    wire: eventsRewrite((e) => {
      if (typeof e.eventTime === "string") e.eventTime = e.eventTime.replace(/\.\d+Z$/, "Z");
    }),
  },
  {
    name: "event-related-dropped",
    mode: "wire",
    rules: ["doc2.event.related-reference"],
    models: "a server whose conversion to events.k8s.io/v1 forgets the related reference, so it is lost on the way back",
    wire: eventsRewrite((e) => {
      delete e.related;
    }),
  },
  {
    name: "event-series-without-count",
    mode: "wire",
    rules: ["doc2.event.series-count-required"],
    models: "a server that writes an Event series without its count (a series reduced to its lastObservedTime)",
    wire: eventsRewrite((e) => {
      if (e.series && typeof e.series === "object") delete (e.series as Obj).count;
    }),
  },
  {
    name: "event-single-as-series",
    mode: "wire",
    rules: ["doc2.event.series-null-single"],
    models: "a server that writes a single Event as a series of one (count 1) instead of leaving series null",
    wire: eventsRewrite((e) => {
      if (e.series === undefined || e.series === null) e.series = { count: 1, lastObservedTime: e.eventTime };
    }),
  },
  {
    name: "event-note-truncated-1kb",
    mode: "wire",
    rules: ["doc2.event.note-readers-64kb"],
    models: "a server (or a reader in front of it) that cuts Event notes to the 1 kB write limit, so a 64 kB note written through core v1 is lost",
    wire: eventsRewrite((e) => {
      if (typeof e.note === "string" && e.note.length > 1024) e.note = e.note.slice(0, 1024);
    }),
  },
  {
    name: "event-errors-use-external-names",
    mode: "wire",
    rules: ["doc2.event.invalid-internal-names"],
    models:
      "a server that validates the events.k8s.io/v1 type itself, so its 422 causes name note, regarding, deprecatedSource… instead of the internal core paths",
    wire: {
      response: (r) =>
        r.code === 422 && EVENTS_PATH.test(r.path)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                const details = o.details as { causes?: { field?: string }[] } | undefined;
                for (const c of details?.causes ?? []) if (c.field) c.field = external(c.field);
                if (typeof o.message === "string")
                  o.message = o.message.replace(
                    /(: |\[|, )(involvedObject|message|source|firstTimestamp|lastTimestamp|count)(?=[.:])/g,
                    (_m, pre: string, f: string) => pre + external(f),
                  );
              }),
            }
          : r,
    },
  },
  {
    name: "event-all-namespaces-post-defaults",
    mode: "wire",
    rules: ["doc2.event.namespace-required"],
    models: "a server that files an Event posted without a namespace (to the all-namespaces path) in default instead of refusing it",
    wire: {
      request: (method, path) =>
        method === "POST" && /^\/apis\/events\.k8s\.io\/v1\/events(\?|$)/.test(path) ? path.replace("/v1/events", "/v1/namespaces/default/events") : path,
    },
  },
  {
    name: "event-patch-not-routed",
    mode: "wire",
    rules: ["doc2.endpoints.patch-path"],
    models: "a server that routes PATCH of one Event to the collection, which takes no PATCH (405): the patch verb is missing on events.k8s.io Events",
    wire: {
      request: (method, path) => (method === "PATCH" && ONE_EVENT_PATH.test(path) ? path.replace(/\/events\/[^/?]+/, "/events") : path),
    },
  },
  {
    name: "event-patch-answers-status",
    mode: "wire",
    rules: ["doc2.endpoints.patch-success"],
    models: "a server that applies an Event patch but answers a Success Status instead of the patched Event",
    wire: {
      response: (r) =>
        r.method === "PATCH" && r.code === 200 && ONE_EVENT_PATH.test(r.path)
          ? { ...r, body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":200}' }
          : r,
    },
  },
];

export const EVENTS_VALIDATION_FAULTS: readonly Fault[] = [...EMULATOR, ...WIRE];
