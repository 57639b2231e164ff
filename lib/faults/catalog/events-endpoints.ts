/**
 * Faults of the Event endpoints (doc2 "Endpoints", suites/events/endpoints.test.ts) and of the
 * Event time-to-live (suites/exclusive/event-ttl.test.ts): each operation on its path, with its
 * parameters, its answer and its 401, as servers and fakes have got them wrong.
 */
import type { Fault } from "../types.js";
import { editJson, STATUS_404, statusBody } from "./wire-edits.js";

const EVENTS_V1 = String.raw`^/apis/events\.[^/]+/v1`;
/** One Event: /apis/events.<domain>/v1/namespaces/<ns>/events/<name>, with or without a query. */
const ONE_EVENT = new RegExp(`${EVENTS_V1}/namespaces/([^/]+)/events/([^/?]+)(\\?|$)`);
/** The Events of one namespace. */
const NAMESPACE_EVENTS = new RegExp(`${EVENTS_V1}/namespaces/([^/]+)/events(\\?|$)`);
/** The Events of every namespace. */
const ALL_EVENTS = new RegExp(`${EVENTS_V1}/events(\\?|$)`);
const isEventList = (path: string): boolean => NAMESPACE_EVENTS.test(path) || ALL_EVENTS.test(path);
const isWatch = (path: string): boolean => /[?&]watch=(true|1)(&|$)/.test(path);
const withoutParam = (path: string, name: string): string =>
  path.replace(new RegExp(`([?&])${name}=[^&]*(&|$)`), (_m, sep: string, end: string) => (end ? sep : "")).replace(/[?&]$/, "");
const notSupported = (action: string): string => statusBody(405, "MethodNotAllowed", `${action} is not supported on resources of kind "events.events.k8s.io"`);
const invalidToken = (r: { code: number; requestHeaders: Record<string, string> }): boolean =>
  r.code === 401 && /^Bearer /.test(r.requestHeaders.authorization ?? "");

/** The Events a GET or create answered (as JSON text), by name alone: the fault of a store keyed by name. */
const seenByName = new Map<string, { namespace: string; body: string }>();
const remember = (body: string): void => {
  if (!body.startsWith("{")) return; // YAML, a Table's text: not remembered.
  const meta = (JSON.parse(body) as { metadata?: { name?: string; namespace?: string } }).metadata;
  if (meta?.name && meta.namespace) seenByName.set(meta.name, { namespace: meta.namespace, body });
};

export const EVENT_ENDPOINT_FAULTS: readonly Fault[] = [
  {
    name: "event-get-ignores-namespace",
    mode: "wire",
    rules: ["doc2.endpoints.get-path", "doc2.endpoints.get-params"],
    models: "a store keyed by name alone: a GET of an Event finds one of that name in another namespace",
    wire: {
      response: (r) => {
        // A dry run stores nothing, so it is not remembered.
        if (r.method === "POST" && r.code === 201 && NAMESPACE_EVENTS.test(r.path) && !/[?&]dryRun=/.test(r.path)) remember(r.body);
        const wanted = r.method === "GET" ? ONE_EVENT.exec(r.path) : null;
        if (!wanted) return r;
        if (r.code === 200) remember(r.body);
        const seen = seenByName.get(wanted[2] ?? "");
        return r.code === 404 && seen && seen.namespace !== wanted[1] ? { ...r, code: 200, body: seen.body } : r;
      },
    },
  },
  {
    name: "event-get-answers-core-form",
    mode: "wire",
    rules: ["doc2.endpoints.get-200"],
    models: "serves a GET of an events.k8s.io Event from the shared core storage without converting it: apiVersion v1, involvedObject and message",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && ONE_EVENT.test(r.path) && r.body.includes('"kind":"Event"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                o.apiVersion = "v1";
                o.involvedObject = o.regarding;
                o.message = o.note;
                delete o.regarding;
                delete o.note;
              }),
            }
          : r,
    },
  },
  {
    name: "event-pretty-ignored",
    mode: "wire",
    rules: ["doc2.endpoints.pretty-string"],
    models: "ignores the pretty parameter on the Event endpoints and always writes compact JSON",
    wire: {
      request: (_method, path) => (ONE_EVENT.test(path) || isEventList(path) ? withoutParam(path, "pretty") : path),
    },
  },
  {
    name: "event-pretty-trailing-newline",
    mode: "wire",
    rules: ["doc2.endpoints.pretty-string"],
    models: "writes pretty JSON with a JSON encoder that ends it with a newline, where the real server's indented body has none",
    wire: {
      response: (r) => (r.method === "GET" && ONE_EVENT.test(r.path) && /[?&]pretty=true/.test(r.path) ? { ...r, body: `${r.body}\n` } : r),
    },
  },
  {
    name: "events-discovery-cluster-scoped",
    mode: "wire",
    rules: ["doc2.service.namespaced"],
    models: "registers events as a cluster-scoped resource in discovery (namespaced: false)",
    wire: {
      response: (r) =>
        r.method === "GET" && new RegExp(`${EVENTS_V1}(\\?|$)`).test(r.path) ? { ...r, body: r.body.replace('"namespaced":true', '"namespaced":false') } : r,
    },
  },
  {
    name: "event-served-as-v1beta1",
    mode: "wire",
    rules: ["doc2.service.api-version-kind"],
    models: "writes Events and EventLists of events.k8s.io/v1 with the apiVersion they were stored in, events.k8s.io/v1beta1",
    wire: {
      response: (r) =>
        new RegExp(EVENTS_V1).test(r.path) ? { ...r, body: r.body.replace(/"apiVersion":"events\.([^/"]+)\/v1"/g, '"apiVersion":"events.$1/v1beta1"') } : r,
    },
  },
  {
    name: "event-list-kind-list",
    mode: "wire",
    rules: ["doc2.service.list-kind"],
    models: 'answers Event lists with the generic kind "List" instead of EventList',
    wire: {
      response: (r) => (r.method === "GET" && isEventList(r.path) ? { ...r, body: r.body.replace('"kind":"EventList"', '"kind":"List"') } : r),
    },
  },
  {
    name: "empty-event-list-items-null",
    mode: "wire",
    rules: ["doc2.list.items-required"],
    models: "writes an empty EventList with items: null (a nil Go slice), as kube-apiserver 1.5 did for every list",
    reference: "https://github.com/kubernetes/kubernetes/issues/39822",
    wire: {
      response: (r) => (r.method === "GET" && isEventList(r.path) ? { ...r, body: r.body.replace('"items":[]', '"items":null') } : r),
    },
  },
  {
    name: "event-list-without-resource-version",
    mode: "wire",
    rules: ["doc2.list.standard-metadata"],
    models:
      "writes EventLists without resourceVersion and remainingItemCount in their metadata, as client-go's fake dynamic client listed without a resourceVersion",
    reference: "https://github.com/kubernetes/kubernetes/pull/74898",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && isEventList(r.path) && !isWatch(r.path)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                const meta = o.metadata as Record<string, unknown>;
                delete meta.resourceVersion;
                delete meta.remainingItemCount;
              }),
            }
          : r,
    },
  },
  {
    name: "event-namespaced-list-spans-namespaces",
    mode: "wire",
    rules: ["doc2.endpoints.list-ns-path", "doc2.endpoints.list-ns-200"],
    models: "answers the list of one namespace's Events with the Events of every namespace (the namespace left out of the storage prefix)",
    wire: {
      request: (method, path) => (method === "GET" && NAMESPACE_EVENTS.test(path) ? path.replace(/\/namespaces\/[^/]+\/events/, "/events") : path),
    },
  },
  {
    name: "event-list-ignores-limit",
    mode: "wire",
    rules: ["doc2.endpoints.list-ns-params", "doc2.endpoints.list-all-params"],
    models: "ignores limit on Event lists and answers every Event in one page",
    wire: {
      request: (method, path) => (method === "GET" && isEventList(path) ? withoutParam(path, "limit") : path),
    },
  },
  {
    name: "event-list-ignores-continue",
    mode: "wire",
    rules: ["doc2.endpoints.list-ns-params", "doc2.endpoints.list-all-params"],
    models: "ignores continue on Event lists, so every page is the first",
    wire: {
      request: (method, path) => (method === "GET" && isEventList(path) ? withoutParam(path, "continue") : path),
    },
  },
  {
    name: "event-list-ignores-watch",
    mode: "wire",
    rules: ["doc2.endpoints.list-ns-params", "doc2.endpoints.list-all-params"],
    models: "ignores watch=true on the Event list paths and answers a list instead of an event stream",
    wire: {
      request: (method, path) => (method === "GET" && isEventList(path) ? withoutParam(path, "watch") : path),
    },
  },
  {
    name: "event-all-namespaces-list-missing",
    mode: "wire",
    rules: ["doc2.endpoints.list-all-path", "doc2.endpoints.list-all-200"],
    models: "serves Events only per namespace: the all-namespaces list path answers 404",
    wire: {
      response: (r) => (r.method === "GET" && ALL_EVENTS.test(r.path) && !isWatch(r.path) ? { ...r, code: 404, body: STATUS_404 } : r),
    },
  },
  {
    name: "event-create-echoes-body",
    mode: "wire",
    rules: ["doc2.endpoints.create-success"],
    models: "answers a create without the uid and creationTimestamp a server gives the stored Event, as client-go's fake clientset creates objects",
    reference: "https://github.com/kubernetes/kubernetes/issues/98833",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code === 201 && NAMESPACE_EVENTS.test(r.path)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                const meta = o.metadata as Record<string, unknown>;
                delete meta.uid;
                delete meta.creationTimestamp;
              }),
            }
          : r,
    },
  },
  {
    name: "event-create-not-allowed",
    mode: "wire",
    rules: ["doc2.endpoints.create-path"],
    models: "serves the Event collection read-only: a POST to /namespaces/<namespace>/events answers 405",
    wire: {
      response: (r) => (r.method === "POST" && NAMESPACE_EVENTS.test(r.path) ? { ...r, code: 405, body: notSupported("create") } : r),
    },
  },
  {
    name: "event-writes-ignore-dry-run",
    mode: "wire",
    rules: ["doc2.endpoints.create-params", "doc2.endpoints.update-params", "doc2.endpoints.delete-params", "doc2.endpoints.deletecollection-params"],
    models: "drops dryRun on every Event write, so a dry run is carried out, as client-go's fake clientset does",
    reference: "https://github.com/kubernetes/client-go/issues/811",
    wire: {
      request: (method, path) => (method !== "GET" && (ONE_EVENT.test(path) || isEventList(path)) ? withoutParam(path, "dryRun") : path),
    },
  },
  {
    name: "event-update-not-allowed",
    mode: "wire",
    rules: ["doc2.endpoints.update-path", "doc2.endpoints.update-success"],
    models: "does not serve PUT on an Event's path (update missing from the resource's verbs): 405",
    wire: {
      response: (r) => (r.method === "PUT" && ONE_EVENT.test(r.path) ? { ...r, code: 405, body: notSupported("update") } : r),
    },
  },
  {
    name: "update-returns-old-object",
    mode: "emulator",
    rules: ["doc2.endpoints.update-success"],
    models: "answers a successful PUT with the object as it was before, as a store that returns the key's previous value would",
    failpoints: ["update-returns-old-object"],
  },
  {
    name: "update-never-creates",
    mode: "emulator",
    rules: ["doc2.endpoints.update-creates-missing"],
    models: "answers a PUT to a missing Event with 404 instead of creating it, as client-go's fake clientset does for every type",
    reference: "https://github.com/kubernetes/client-go/issues/479",
    failpoints: ["update-never-creates"],
  },
  {
    name: "update-requires-resource-version",
    mode: "emulator",
    rules: ["doc2.endpoints.update-unconditional"],
    models: "refuses a PUT without resourceVersion for every type, as controller-runtime's fake client 0.6.0 did before it honoured AllowUnconditionalUpdate",
    reference: "https://github.com/kubernetes-sigs/controller-runtime/pull/926",
    failpoints: ["update-requires-resource-version"],
  },
  {
    name: "delete-returns-object",
    mode: "emulator",
    rules: ["doc2.endpoints.delete-success", "doc2.endpoints.status-shape"],
    models: "answers the DELETE of an Event with the deleted Event, as the registry does only for types with ReturnDeletedObject, instead of a Success Status",
    failpoints: ["delete-returns-object"],
  },
  {
    name: "delete-status-carries-code",
    mode: "wire",
    rules: ["doc2.endpoints.status-shape"],
    models: "writes code 200 into the Success Status of a delete, where the real server leaves it out",
    wire: {
      response: (r) =>
        r.method === "DELETE" && r.code === 200 && ONE_EVENT.test(r.path) && r.body.includes('"status":"Success"')
          ? { ...r, body: editJson(r.body, (o) => (o.code = 200)) }
          : r,
    },
  },
  {
    name: "event-delete-not-allowed",
    mode: "wire",
    rules: ["doc2.endpoints.delete-path"],
    models: "does not serve DELETE on an Event's path: 405",
    wire: {
      response: (r) => (r.method === "DELETE" && ONE_EVENT.test(r.path) ? { ...r, code: 405, body: notSupported("delete") } : r),
    },
  },
  {
    name: "event-deletecollection-not-allowed",
    mode: "wire",
    rules: ["doc2.endpoints.deletecollection-path", "doc1.verbs.deletecollection", "doc1.paths.deletecollection-collection"],
    models: "has no deletecollection for Events: a DELETE of the collection path answers 405",
    wire: {
      response: (r) => (r.method === "DELETE" && NAMESPACE_EVENTS.test(r.path) ? { ...r, code: 405, body: notSupported("deletecollection") } : r),
    },
  },
  {
    name: "event-deletecollection-ignores-limit",
    mode: "wire",
    rules: ["doc2.endpoints.deletecollection-params"],
    models: "ignores limit on deletecollection and deletes every match at once instead of one page",
    wire: {
      request: (method, path) => (method === "DELETE" && NAMESPACE_EVENTS.test(path) ? withoutParam(path, "limit") : path),
    },
  },
  {
    name: "event-deletecollection-204",
    mode: "wire",
    rules: ["doc2.endpoints.deletecollection-200"],
    models: "answers deletecollection with 204 No Content and no body, as generic REST frameworks answer a DELETE",
    wire: {
      response: (r) => (r.method === "DELETE" && r.code === 200 && NAMESPACE_EVENTS.test(r.path) ? { ...r, code: 204, body: "" } : r),
    },
  },
  {
    name: "invalid-token-reads-events",
    mode: "wire",
    rules: ["doc2.endpoints.get-401", "doc2.endpoints.list-ns-401", "doc2.endpoints.list-all-401"],
    models: "treats a bearer token it cannot verify as anonymous and lets anonymous read Events",
    wire: {
      response: (r) => {
        if (r.method !== "GET" || !invalidToken(r)) return r;
        if (ONE_EVENT.test(r.path)) return { ...r, code: 200, body: '{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{}}' };
        if (isEventList(r.path)) return { ...r, code: 200, body: '{"kind":"EventList","apiVersion":"events.k8s.io/v1","metadata":{},"items":[]}' };
        return r;
      },
    },
  },
  {
    name: "invalid-token-writes-events",
    mode: "wire",
    rules: ["doc2.endpoints.update-401", "doc2.endpoints.patch-401", "doc2.endpoints.delete-401"],
    models: "treats a bearer token it cannot verify as anonymous and lets anonymous change and delete Events",
    wire: {
      response: (r) =>
        ["PUT", "PATCH", "DELETE"].includes(r.method) && ONE_EVENT.test(r.path) && invalidToken(r)
          ? { ...r, code: 200, body: '{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{}}' }
          : r,
    },
  },
  {
    name: "invalid-token-writes-event-collection",
    mode: "wire",
    rules: ["doc2.endpoints.create-401", "doc2.endpoints.deletecollection-401"],
    models: "treats a bearer token it cannot verify as anonymous and lets anonymous create Events and delete their collection",
    wire: {
      response: (r) => {
        if (!NAMESPACE_EVENTS.test(r.path) || !invalidToken(r)) return r;
        if (r.method === "POST") return { ...r, code: 201, body: '{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{}}' };
        if (r.method === "DELETE") return { ...r, code: 200, body: '{"kind":"EventList","apiVersion":"events.k8s.io/v1","metadata":{},"items":[]}' };
        return r;
      },
    },
  },
  {
    name: "generation-on-create",
    mode: "emulator",
    rules: ["doc2.event.generation-unset"],
    models: "gives every created object metadata.generation 1, as the custom-resource and most built-in strategies do, though the Event strategy sets none",
    failpoints: ["generation-on-create"],
  },
  {
    name: "event-ttl-ignored",
    mode: "emulator",
    rules: ["doc2.service.retention-limited"],
    models: "keeps Events forever: a storage without leases (or with leases renewed on every etcd leader election) never expires them",
    reference: "https://github.com/kubernetes/kubernetes/issues/65497",
    failpoints: ["event-ttl-ignored"],
  },
];
