/**
 * Wire faults of the first self-test (test/suites-fail-on-wrong-server.test.ts, now replaced by
 * `npm run selftest`): one or a few rules each, across the suites.
 */
import type { WireFault } from "../types.js";
import { editJson, STATUS_404 } from "./wire-edits.js";

export const FIRST_WAVE_WIRE_FAULTS: readonly WireFault[] = [
  {
    name: "accepts-made-up-bearer-token",
    mode: "wire",
    wholeRun: true,
    rules: ["doc1.auth.unauthenticated-401", "doc1.errors.401-unauthenticated"],
    models: "accepts a made-up bearer token (and still refuses requests without credentials)",
    wire: {
      response: (r) =>
        r.code === 401 && /^Bearer /.test(r.requestHeaders.authorization ?? "")
          ? { ...r, code: 200, body: '{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}' }
          : r,
    },
  },
  {
    name: "crd-list-404",
    mode: "wire",
    wholeRun: true,
    rules: ["doc1.paths.group-prefix"],
    models: "lists apiextensions in discovery but answers 404 to the CustomResourceDefinition list",
    wire: {
      response: (r) =>
        r.method === "GET" && /^\/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions(\?|$)/.test(r.path) ? { ...r, code: 404, body: STATUS_404 } : r,
    },
  },
  {
    name: "no-initial-events-end-bookmark",
    mode: "wire",
    rules: ["doc1.initial-events.step2-bookmark"],
    models: "sends no k8s.io/initial-events-end bookmark",
    wire: {
      watchLine: (l) => (l.includes("k8s.io/initial-events-end") ? undefined : l),
    },
  },
  {
    name: "drops-second-initial-event",
    mode: "wire",
    rules: ["doc1.initial-events.step1-synthetic-added"],
    models: "drops the second initial object of a sendInitialEvents watch",
    wire: {
      watchLines: (path) => {
        let added = 0;
        return (l) => (path.includes("sendInitialEvents=true") && l.includes('"type":"ADDED"') && ++added === 2 ? undefined : l);
      },
    },
  },
  {
    name: "bookmark-carries-object-fields",
    mode: "wire",
    rules: ["doc1.watch-events.bookmark-object", "doc1.watch-event.bookmark-rv-only"],
    models: "sends BOOKMARKs that carry more than a resourceVersion",
    wire: {
      watchLine: (l) => (l.includes('"type":"BOOKMARK"') ? l.replace('"metadata":{', '"metadata":{"name":"not-a-bookmark",') : l),
    },
  },
  {
    name: "bookmark-rv-goes-backwards",
    mode: "wire",
    rules: ["doc1.watch-events.bookmark-meaning"],
    models: "sends BOOKMARKs whose version goes backwards",
    wire: {
      watchLine: (l) => (l.includes('"type":"BOOKMARK"') ? l.replace(/"resourceVersion":"[0-9]+"/, '"resourceVersion":"1"') : l),
    },
  },
  {
    name: "drops-every-4th-watch-event",
    mode: "wire",
    rules: ["doc1.watch-events.reports-all-outcomes"],
    models: "drops every 4th event of every watch",
    wire: {
      watchLines: () => {
        let n = 0;
        return (l) => (l.includes('"type":"BOOKMARK"') || ++n % 4 !== 0 ? l : undefined);
      },
    },
  },
  {
    name: "never-gzips",
    mode: "wire",
    rules: ["doc1.headers.gzip"],
    models: "never compresses (ignores Accept-Encoding: gzip)",
    wire: {
      requestHeaders: (h) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== "accept-encoding")),
    },
  },
  {
    name: "empty-list-without-items",
    mode: "wire",
    rules: ["doc1.fields.items-array"],
    models: "leaves items out of an empty list",
    wire: {
      response: (r) => (r.method === "GET" && /"items":\[\]/.test(r.body) ? { ...r, body: editJson(r.body, (o) => delete o.items) } : r),
    },
  },
  {
    name: "accepts-duplicate-name",
    mode: "wire",
    rules: ["doc1.names.unique-in-namespace"],
    models: "accepts a duplicate name",
    wire: {
      response: (r) => (r.method === "POST" && r.code === 409 ? { ...r, code: 201, body: "{}" } : r),
    },
  },
  {
    name: "watch-never-reports-delete",
    mode: "wire",
    rules: ["doc1.watch-events.deleted-type"],
    models: "never reports deletions in a watch",
    wire: {
      watchLine: (l) => (l.includes('"type":"DELETED"') ? undefined : l),
    },
  },
  {
    name: "list-rv-zero",
    mode: "wire",
    rules: ["doc1.versioning.rv-decimal-form"],
    models: "lists carry resourceVersion 0",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && r.body.includes('"kind":"ConfigMapList"')
          ? { ...r, body: editJson(r.body, (o) => ((o.metadata as Record<string, unknown>).resourceVersion = "0")) }
          : r,
    },
  },
  {
    name: "ignores-resource-version-match",
    mode: "wire",
    rules: ["doc1.list-rv.exact-limit-unset-rv-other-exact"],
    models: "ignores resourceVersionMatch on lists",
    wire: {
      request: (method, path) => (method === "GET" ? path.replace(/([?&])resourceVersionMatch=[^&]*&?/, "$1") : path),
    },
  },
  {
    name: "watch-duplicates-every-event",
    mode: "wire",
    rules: ["doc1.watch-events.reports-all-outcomes"],
    models: "reports every change twice in a watch",
    wire: {
      watchLine: (l) => `${l}\n${l}`,
    },
  },
  {
    name: "event-note-unlimited",
    mode: "wire",
    rules: ["doc2.event.note-max-1kb"],
    models: "drops the note length limit on Events",
    wire: {
      response: (r) => (r.method === "POST" && r.code === 422 && r.body.includes('"field":"message"') ? { ...r, code: 201, body: "{}" } : r),
    },
  },
  {
    name: "ignores-event-field-selector-regarding-uid",
    mode: "wire",
    rules: ["doc2.endpoints.list-field-selectors"],
    models: "ignores an Event field selector on regarding.uid and lists everything",
    wire: {
      request: (method, path) => (method === "GET" && path.includes("/events") ? path.replace(/([?&])fieldSelector=regarding\.uid[^&]*&?/, "$1") : path),
    },
  },
  {
    name: "event-drops-regarding",
    mode: "wire",
    rules: ["doc2.event.regarding-reference"],
    models: "drops regarding from the Events it returns",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && /"kind":"Event(List)?"/.test(r.body)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                for (const e of (o.items as Record<string, unknown>[] | undefined) ?? [o]) delete e.regarding;
              }),
            }
          : r,
    },
  },
  {
    name: "event-mapping-drops-series",
    mode: "wire",
    rules: ["doc2.service.shared-with-core", "doc2.event.update-series-checked-if-changed"],
    models: "drops series from core v1 Events and deprecatedCount from events.k8s.io Events, and checks an unchanged series on update",
    wire: {
      response: (r) => {
        if (r.method === "GET" && r.code === 200 && /^\/api\/v1\/namespaces\/[^/]+\/events\//.test(r.path))
          return { ...r, body: editJson(r.body, (o) => delete o.series) };
        if (r.method === "GET" && r.code === 200 && /^\/apis\/events\./.test(r.path) && r.body.includes('"deprecatedCount"'))
          return { ...r, body: editJson(r.body, (o) => delete o.deprecatedCount) };
        if (r.method === "PUT" && r.code === 200 && r.body.includes('"series":{"count":1,'))
          return { ...r, code: 422, body: JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Invalid", code: 422 }) };
        return r;
      },
    },
  },
  {
    name: "paged-list-always-410",
    mode: "wire",
    rules: [
      "doc1.list-rv.client-not-older-than-limit-410",
      "doc1.list-rv.nomatch-limit-unset-rv-other-not-older-than",
      "doc1.list-rv.notolderthan-limit-unset-rv-other-not-older-than",
    ],
    models: "answers every paged list of a namespace's configmaps with 410, so a retry never helps, and lists at another resourceVersion without items",
    wire: {
      response: (r) => {
        if (r.method !== "GET" || r.code !== 200 || !r.body.includes('"kind":"ConfigMapList"')) return r;
        if (/\/configmaps\?(.*&)?resourceVersion=(?!0(&|$))/.test(r.path) && !/[?&]limit=/.test(r.path))
          return { ...r, body: editJson(r.body, (o) => (o.items = [])) };
        return /\/configmaps\?(.*&)?limit=/.test(r.path)
          ? {
              ...r,
              code: 410,
              body: JSON.stringify({
                kind: "Status",
                apiVersion: "v1",
                metadata: {},
                status: "Failure",
                message: "too old resource version",
                reason: "Expired",
                code: 410,
              }),
            }
          : r;
      },
    },
  },
  {
    name: "apply-accepts-non-objects",
    mode: "wire",
    rules: ["doc1.patch.ssa-objects-only"],
    models: "accepts apply bodies that are no objects",
    wire: {
      response: (r) =>
        r.method === "PATCH" && r.code === 400 && r.body.includes("cannot unmarshal") ? { ...r, code: 201, body: JSON.stringify({ metadata: {} }) } : r,
    },
  },
  {
    name: "deletion-timestamp-moves",
    mode: "wire",
    rules: ["doc1.fields.deletion-timestamp", "doc1.fields.finalizers-unordered"],
    models: "moves deletionTimestamp to each read's time and keeps finalizers in its own (sorted) order",
    wire: {
      response: (r) => {
        if (!/\/configmaps\/[^/?]+(\?|$)/.test(r.path) || r.code !== 200 || !r.body.includes('"finalizers"')) return r;
        return {
          ...r,
          body: editJson(r.body, (o) => {
            const meta = o.metadata as { deletionTimestamp?: string; finalizers?: string[] };
            if (r.method === "GET" && meta.deletionTimestamp) meta.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
            meta.finalizers?.sort();
          }),
        };
      },
    },
  },
  {
    name: "event-in-impossible-namespace",
    mode: "wire",
    rules: ["doc2.event.namespace-dns-subdomain"],
    models: "creates Events in a namespace that cannot exist",
    wire: {
      response: (r) => (r.method === "POST" && r.code === 404 && r.path.includes("/events") ? { ...r, code: 201, body: "{}" } : r),
    },
  },
  {
    name: "yaml-rewrites-event-note",
    mode: "wire",
    rules: ["doc1.media.yaml"],
    models: "changes an Event's note in YAML responses",
    wire: {
      response: (r) =>
        r.method === "GET" && /note: ['"]?written as/.test(r.body) ? { ...r, body: r.body.replace(/(note: ['"]?)written as/g, "$1rewritten as") } : r,
    },
  },
  {
    name: "crds-treated-as-builtins",
    mode: "wire",
    rules: ["doc1.patch.strategic-merge-no-crds", "doc1.table.default-columns", "doc1.field-validation.preserve-unknown"],
    models: "treats custom resources like built-ins and prints CRDs with Age",
    wire: {
      response: (r) => {
        if (r.method === "PATCH" && r.code === 415 && r.path.includes("/widgets/")) return { ...r, code: 200, body: "{}" };
        if (r.method === "GET" && r.path.includes("/customresourcedefinitions") && r.body.includes('"Created At"'))
          return { ...r, body: r.body.replace('"Created At"', '"Age"') };
        if (r.method === "GET" && r.path.includes("/widgets/") && r.body.includes('"open":{')) return { ...r, body: editJson(r.body, (o) => delete o.open) };
        return r;
      },
    },
  },
  {
    name: "webhook-side-effects-accepted",
    mode: "wire",
    rules: ["doc1.dry-run.webhook-side-effects"],
    models: "registers webhooks with side effects",
    wire: {
      response: (r) => (r.method === "POST" && r.code === 422 && r.path.includes("webhookconfigurations") ? { ...r, code: 201, body: "{}" } : r),
    },
  },
  {
    name: "finalize-get-and-status-writes-spec",
    mode: "wire",
    rules: ["doc1.verbs.subresource-verbs", "doc1.paths.subresource-cluster-scoped"],
    models: "serves GET on finalize and lets a status write change spec",
    wire: {
      response: (r) => {
        if (r.method === "GET" && r.code === 405 && r.path.endsWith("/finalize")) return { ...r, code: 200, body: "{}" };
        if (r.method === "PUT" && r.path.endsWith("/status") && r.path.startsWith("/api/v1/namespaces/")) {
          return { ...r, body: editJson(r.body, (o) => (o.spec = { finalizers: ["changed"] })) };
        }
        return r;
      },
    },
  },
  {
    name: "role-not-enforced",
    mode: "wire",
    rules: ["doc1.auth.unauthorized-401", "doc1.auth.namespace-scope", "doc1.auth.dry-run-same-authz"],
    models: "lets a known caller do what its role does not grant",
    wire: {
      response: (r) => (r.code === 403 && r.body.includes('"Forbidden"') ? { ...r, code: r.method === "POST" ? 201 : 200, body: "{}" } : r),
    },
  },
  {
    name: "discovery-read-verbs-only-1-34",
    mode: "wire",
    rules: ["doc1.verbs.most-types-all-methods", "doc1.service.release-1-35"],
    models: "lists only read verbs in discovery and reports release 1.34",
    wire: {
      response: (r) => {
        if (r.method === "GET" && /^\/(api\/v1|apis\/[^/]+\/[^/]+)$/.test(r.path.split("?")[0] ?? "") && r.body.includes('"APIResourceList"')) {
          return { ...r, body: r.body.replace(/"verbs":\[[^\]]*\]/g, '"verbs":["get","list","watch"]') };
        }
        if (r.method === "GET" && r.path === "/version") return { ...r, body: editJson(r.body, (o) => (o.minor = "34")) };
        return r;
      },
    },
  },
  {
    name: "put-failure-status-names-no-object",
    mode: "wire",
    rules: ["doc1.paths.replace-put-resource", "doc1.verbs.create-put-absent"],
    models: "answers a failed PUT with a Status that names no object",
    wire: {
      response: (r) => {
        if (r.method !== "PUT") return r;
        if (r.code === 404) return { ...r, body: STATUS_404 };
        if (r.code === 400) return { ...r, body: editJson(r.body, (o) => (o.message = "bad request")) };
        return r;
      },
    },
  },
  {
    name: "delete-precondition-stale-message",
    mode: "wire",
    rules: ["doc1.delete-options.standard-fields"],
    models: "answers a failed delete precondition with the stale-update Conflict",
    wire: {
      response: (r) =>
        r.method === "DELETE" && r.code === 409
          ? { ...r, body: editJson(r.body, (o) => (o.message = String(o.message).replace(/: the .*$/, ": the object has been modified"))) }
          : r,
    },
  },
  {
    name: "status-406-compact",
    mode: "wire",
    rules: ["doc1.errors.406-not-acceptable", "doc1.media.rule3-as-only-406", "doc1.table.row-object"],
    models: "writes 406 Status bodies compact and words a bad includeObject freely",
    wire: {
      response: (r) => {
        if (r.code === 406 && r.body.startsWith("{")) return { ...r, body: JSON.stringify(JSON.parse(r.body)) };
        if (r.code === 400) return { ...r, body: editJson(r.body, (o) => (o.message = "bad includeObject")) };
        return r;
      },
    },
  },
  {
    name: "invalid-patch-without-causes",
    mode: "wire",
    rules: ["doc1.errors.422-invalid"],
    models: "answers an invalid patch with 422 Invalid but no causes",
    wire: {
      response: (r) =>
        r.method === "PATCH" && r.code === 422 && r.body.includes('"FieldValueInvalid"')
          ? { ...r, body: editJson(r.body, (o) => delete (o.details as { causes?: unknown }).causes) }
          : r,
    },
  },
  {
    name: "merge-force-bare-422",
    mode: "wire",
    rules: ["doc2.endpoints.patch-params"],
    models: "answers a force on a merge patch with a bare 422",
    wire: {
      response: (r) =>
        r.method === "PATCH" && r.code === 422 && r.body.includes('"PatchOptions"') ? { ...r, body: editJson(r.body, (o) => delete o.details) } : r,
    },
  },
  {
    name: "unknown-subresource-namespace-message",
    mode: "wire",
    rules: ["doc1.errors.404-not-found"],
    models: "answers an unknown subresource as if the namespace were missing",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 404 && r.path.endsWith("/no-such-subresource")
          ? { ...r, body: editJson(r.body, (o) => (o.message = 'namespaces "x" not found')) }
          : r,
    },
  },
  {
    name: "field-validation-value-unexplained",
    mode: "wire",
    rules: ["doc1.query.field-validation-values"],
    models: "refuses an unknown fieldValidation value without saying which option or why",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code === 422 && r.body.includes('"CreateOptions"')
          ? { ...r, body: editJson(r.body, (o) => (o.message = 'CreateOptions.meta.k8s.io "" is invalid')) }
          : r,
    },
  },
];
