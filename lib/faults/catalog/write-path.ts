/**
 * Faults of the write path and of what every request shares: CRUD and path shapes, object
 * names, verbs, common fields, errors and bad input, authorization, admission webhooks, rate
 * limits, deletion and finalizers, dry run. Wire faults rewrite what crosses the wire; emulator
 * faults switch on failpoints (lib/emulator/failpoints.ts) where the defect is one of state.
 */
import type { Fault } from "../types.js";
import { editJson, statusBody } from "./wire-edits.js";

/** The path without its query. */
const pathOf = (path: string): string => path.split("?")[0] ?? path;
/** A path naming one object of a namespaced configmap or events.k8s.io collection. */
const ONE_OBJECT = /^\/(api\/v1|apis\/events\.k8s\.io\/v1)\/namespaces\/[^/]+\/(configmaps|events)\/[^/]+$/;
/** A namespaced configmap or events.k8s.io collection. */
const COLLECTION = /^\/(api\/v1|apis\/events\.k8s\.io\/v1)\/namespaces\/[^/]+\/(configmaps|events)$/;
const isDryRun = (path: string): boolean => /[?&]dryRun=All(&|$)/.test(path);
const isJsonObject = (body: string): boolean => body.startsWith("{");
const metaOf = (o: Record<string, unknown>): Record<string, unknown> => (o.metadata ?? {}) as Record<string, unknown>;

/** The proxy's own rate limiter for rate-limit-429-without-retry-after: list requests per second. */
const recentLists: number[] = [];

export const WRITE_PATH_FAULTS: readonly Fault[] = [
  // ── CRUD, verbs and path shapes ─────────────────────────────────────────────────────────
  {
    name: "namespace-read-as-namespaced",
    mode: "wire",
    rules: ["doc1.paths.get-cluster-scoped", "doc1.paths.namespace-cluster-scoped"],
    models: "serves a Namespace as if it lived in itself: metadata.namespace set to its own name (a store keyed as if every type were namespaced)",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && /^\/api\/v1\/namespaces\/[^/]+$/.test(pathOf(r.path)) && isJsonObject(r.body)
          ? { ...r, body: editJson(r.body, (o) => (metaOf(o).namespace = metaOf(o).name)) }
          : r,
    },
  },
  {
    name: "cluster-scoped-list-empty",
    mode: "wire",
    rules: ["doc1.paths.list-cluster-scoped"],
    models: "lists a cluster-scoped collection (namespaces) as empty: a list that only ranges over namespaced key prefixes",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && pathOf(r.path) === "/api/v1/namespaces" && !/[?&]watch=/.test(r.path) && isJsonObject(r.body)
          ? { ...r, body: editJson(r.body, (o) => (o.items = [])) }
          : r,
    },
  },
  {
    name: "accepts-list-body-as-batch",
    mode: "wire",
    rules: ["doc1.verbs.no-transactions", "doc1.verbs.client-series"],
    models: "accepts a List of objects posted to a collection as one batched submission (201) instead of refusing it",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code >= 400 && r.code < 500 && COLLECTION.test(pathOf(r.path)) && /ConfigMapList/.test(r.body)
          ? { ...r, code: 201, body: JSON.stringify({ kind: "ConfigMapList", apiVersion: "v1", metadata: {}, items: [] }) }
          : r,
    },
  },
  {
    name: "deletecollection-deletes-one",
    mode: "emulator",
    rules: ["doc1.verbs.multi-resource-verbs"],
    models: "a collection delete that removes only the first matching object while answering with all of them",
    failpoints: ["deletecollection-deletes-one"],
  },
  {
    name: "core-served-under-apis",
    mode: "wire",
    rules: ["doc1.paths.core-prefix", "doc1.versioning.core-api-path"],
    models: "serves the core group under /apis/v1 as well as /api/v1, as if the core group were a named group with an empty name",
    wire: {
      request: (_method, path) => (path.startsWith("/apis/v1/") ? `/api/v1/${path.slice("/apis/v1/".length)}` : path),
    },
  },
  {
    name: "group-served-under-api",
    mode: "wire",
    rules: ["doc1.versioning.group-version-path"],
    models: "serves named groups under /api/<group>/<version> as well as /apis/<group>/<version>: a router that ignores the /api vs /apis segment",
    wire: {
      request: (_method, path) => (/^\/api\/[^/]+\.[^/]+\/v[0-9]/.test(path) ? `/apis/${path.slice("/api/".length)}` : path),
    },
  },
  {
    name: "events-not-kept",
    mode: "wire",
    rules: ["doc1.watch-events.event-resources"],
    models: "accepts Events but keeps none: reads of an Event find nothing and Event lists are empty (an event sink that drops what it is sent)",
    wire: {
      response: (r) => {
        if (r.method !== "GET" || r.code !== 200 || !/\/events(\/|\?|$)/.test(r.path) || /[?&]watch=/.test(r.path) || !isJsonObject(r.body)) return r;
        if (/"kind":"EventList"/.test(r.body)) return { ...r, body: editJson(r.body, (o) => (o.items = [])) };
        const name = String(metaOf(JSON.parse(r.body) as Record<string, unknown>).name ?? "");
        return { ...r, code: 404, body: statusBody(404, "NotFound", `events.events.k8s.io "${name}" not found`) };
      },
    },
  },
  {
    name: "create-answers-200",
    mode: "wire",
    rules: ["doc1.verbs.create-post", "doc1.paths.create-post-collection"],
    models: "answers a create with 200 OK instead of 201 Created, as Kubernetes itself did before v1beta3",
    reference: "https://github.com/kubernetes/kubernetes/issues/2031",
    wire: {
      response: (r) => (r.method === "POST" && r.code === 201 && COLLECTION.test(pathOf(r.path)) ? { ...r, code: 200 } : r),
    },
  },
  {
    name: "objects-without-type-meta",
    mode: "wire",
    rules: ["doc1.fields.kind-api-version-present"],
    models: "answers with objects that lack kind and apiVersion (a server that writes its typed objects without TypeMeta, as typed Go clients see them)",
    wire: {
      response: (r) =>
        r.code < 300 &&
        (ONE_OBJECT.test(pathOf(r.path)) || COLLECTION.test(pathOf(r.path))) &&
        isJsonObject(r.body) &&
        !/"kind":"(Status|\w+List)"/.test(r.body)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                delete o.kind;
                delete o.apiVersion;
              }),
            }
          : r,
    },
  },
  {
    name: "api-version-without-group",
    mode: "wire",
    rules: ["doc1.fields.api-version-form"],
    models: "writes a group's objects with apiVersion <version> only, dropping the group",
    wire: {
      response: (r) =>
        r.code < 300 && r.path.startsWith("/apis/events.k8s.io/v1/")
          ? { ...r, body: r.body.replace(/"apiVersion":"events\.k8s\.io\/v1"/g, '"apiVersion":"v1"') }
          : r,
    },
  },
  {
    name: "omits-metadata-namespace",
    mode: "wire",
    rules: ["doc1.fields.namespace-set"],
    models: "leaves metadata.namespace out of the namespaced objects it returns (the namespace kept only in the storage key)",
    wire: {
      response: (r) =>
        r.code < 300 && (ONE_OBJECT.test(pathOf(r.path)) || COLLECTION.test(pathOf(r.path))) && isJsonObject(r.body)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                for (const i of (o.items as Record<string, unknown>[] | undefined) ?? [o]) delete metaOf(i).namespace;
              }),
            }
          : r,
    },
  },
  {
    name: "create-keeps-client-uid",
    mode: "emulator",
    rules: ["doc1.fields.uid-unique"],
    models:
      "keeps the uid a create body carries instead of generating one, so a uid can repeat (fakes that store objects as given, e.g. client-go's fake clientset)",
    reference: "https://github.com/kubernetes/kubernetes/issues/98833",
    failpoints: ["create-keeps-client-uid"],
  },
  {
    name: "creation-timestamp-from-body",
    mode: "emulator",
    rules: ["doc1.fields.creation-timestamp"],
    models:
      "keeps the creationTimestamp a create body carries instead of setting the server's time (fakes that store objects as given, e.g. client-go's fake clientset)",
    reference: "https://github.com/kubernetes/kubernetes/issues/98833",
    failpoints: ["creation-timestamp-from-body"],
  },
  {
    name: "get-answers-with-list",
    mode: "wire",
    rules: ["doc1.verbs.get-single", "doc1.paths.get-namespaced"],
    models: "serves a get of one object as a list filtered by its name (a <Kind>List of one item instead of the object)",
    wire: {
      request: (method, path) => {
        const p = pathOf(path);
        if (method !== "GET" || !ONE_OBJECT.test(p) || path.includes("?")) return path;
        const i = p.lastIndexOf("/");
        return `${p.slice(0, i)}?fieldSelector=${encodeURIComponent(`metadata.name=${p.slice(i + 1)}`)}`;
      },
    },
  },
  {
    name: "list-kind-bare-list",
    mode: "wire",
    rules: ["doc1.fields.list-kind-suffix", "doc1.fields.no-list-kind"],
    models: "answers lists with the bare kind List (as kubectl prints a client-side list) instead of <Kind>List",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && COLLECTION.test(pathOf(r.path))
          ? { ...r, body: r.body.replace(/"kind":"(ConfigMap|Event)List"/, '"kind":"List"') }
          : r,
    },
  },
  {
    name: "namespaced-list-spans-namespaces",
    mode: "wire",
    rules: ["doc1.paths.list-namespaced", "doc1.verbs.list-collection"],
    models: "lists a namespaced collection across every namespace, ignoring the namespace segment of the path",
    wire: {
      request: (method, path) =>
        method === "GET" && COLLECTION.test(pathOf(path)) && !/[?&]watch=/.test(path) ? path.replace(/\/namespaces\/[^/]+\/(configmaps|events)/, "/$1") : path,
    },
  },
  {
    name: "put-update-answers-201",
    mode: "wire",
    rules: ["doc1.verbs.update-put-existing"],
    models: "answers a PUT to an existing object with 201 Created, classifying every PUT as a create",
    wire: {
      response: (r) => (r.method === "PUT" && r.code === 200 && ONE_OBJECT.test(pathOf(r.path)) ? { ...r, code: 201 } : r),
    },
  },
  {
    name: "update-answer-rv-behind",
    mode: "wire",
    rules: ["doc1.fields.rv-last-modified"],
    models: "answers an update with a resourceVersion older than the one it stored (a revision read before the write committed)",
    wire: {
      response: (r) =>
        r.method === "PUT" && r.code === 200 && ONE_OBJECT.test(pathOf(r.path)) && isJsonObject(r.body)
          ? { ...r, body: editJson(r.body, (o) => (metaOf(o).resourceVersion = String(Number(metaOf(o).resourceVersion) - 1))) }
          : r,
    },
  },
  {
    name: "patch-answers-405",
    mode: "wire",
    rules: ["doc1.service.crud-methods"],
    models: "answers PATCH with 405 Method Not Allowed (after applying it), as a front that lists only GET, POST, PUT and DELETE as allowed methods",
    wire: {
      response: (r) =>
        r.method === "PATCH" && ONE_OBJECT.test(pathOf(r.path))
          ? { ...r, code: 405, body: statusBody(405, "MethodNotAllowed", "the server does not allow this method on the requested resource") }
          : r,
    },
  },
  {
    name: "delete-acknowledged-not-done",
    mode: "wire",
    rules: ["doc1.verbs.delete-single", "doc1.paths.delete-resource"],
    models: "answers a DELETE of one object as if it were done but keeps the object (the delete runs as a dry run)",
    wire: {
      request: (method, path) => (method === "DELETE" && ONE_OBJECT.test(pathOf(path)) ? `${path}${path.includes("?") ? "&" : "?"}dryRun=All` : path),
    },
  },
  {
    name: "delete-removes-whole-collection",
    mode: "wire",
    rules: ["doc1.verbs.single-resource-verbs"],
    models: "serves a DELETE of one object as a delete of its whole collection (a router that drops the name segment)",
    wire: {
      request: (method, path) => (method === "DELETE" && ONE_OBJECT.test(pathOf(path)) ? path.replace(/\/[^/?]+(\?|$)/, "$1") : path),
    },
  },
  {
    name: "delete-answers-empty-body",
    mode: "wire",
    rules: ["doc1.paths.response-bodies"],
    models: "answers a successful DELETE with an empty JSON object: neither the object nor a Status",
    wire: {
      response: (r) => (r.method === "DELETE" && r.code === 200 && ONE_OBJECT.test(pathOf(r.path)) ? { ...r, body: "{}" } : r),
    },
  },
  // ── Errors and bad input ────────────────────────────────────────────────────────────────
  {
    name: "status-api-version-of-group",
    mode: "wire",
    rules: ["doc1.errors.status-api-version"],
    models: "writes error Status bodies with the apiVersion of the request's group instead of v1",
    wire: {
      response: (r) =>
        r.code >= 400 && r.path.startsWith("/apis/events.k8s.io/v1/") && r.body.includes('"kind":"Status"')
          ? { ...r, body: editJson(r.body, (o) => (o.apiVersion = "events.k8s.io/v1")) }
          : r,
    },
  },
  {
    name: "not-found-details-kind-is-kind",
    mode: "wire",
    rules: ["doc1.errors.status-details"],
    models: "names the Kind (ConfigMap) in a NotFound's details.kind where a real server names the plural resource (configmaps)",
    wire: {
      response: (r) =>
        r.code === 404 && r.body.includes('"NotFound"') && /"kind":"configmaps"/.test(r.body)
          ? { ...r, body: editJson(r.body, (o) => ((o.details as Record<string, unknown>).kind = "ConfigMap")) }
          : r,
    },
  },
  {
    name: "error-status-without-status-field",
    mode: "wire",
    rules: ["doc1.errors.status-body"],
    models: "writes error Status bodies without their status (Failure) and metadata fields",
    wire: {
      response: (r) =>
        r.code >= 400 && r.body.includes('"kind":"Status"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                delete o.status;
                delete o.metadata;
              }),
            }
          : r,
    },
  },
  {
    name: "already-exists-as-conflict",
    mode: "wire",
    rules: ["doc1.errors.409-already-exists"],
    models: "answers a create of a taken name with a 409 of reason Conflict (the optimistic-lock error) instead of AlreadyExists",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code === 409 && r.body.includes('"AlreadyExists"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                o.reason = "Conflict";
                o.message = String(o.message).replace(
                  /^(\S+) "([^"]+)" already exists$/,
                  'Operation cannot be fulfilled on $1 "$2": the object has been modified',
                );
              }),
            }
          : r,
    },
  },
  {
    name: "too-large-html-body",
    mode: "wire",
    rules: ["doc1.limits.request-too-large"],
    models: "answers an oversized request with a front proxy's HTML 413 page (nginx's client_max_body_size) instead of a Status",
    wire: {
      response: (r) =>
        r.code === 413
          ? {
              ...r,
              body: "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n</body>\r\n</html>\r\n",
            }
          : r,
    },
  },
  {
    name: "malformed-json-as-500",
    mode: "wire",
    rules: ["doc1.errors.400-fatal-validation"],
    models: "answers a body that cannot be decoded with 500 InternalError (the decode error passed through unmapped) instead of 400 BadRequest",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code === 400 && /cannot be handled as|couldn't get version\/kind/.test(r.body)
          ? { ...r, code: 500, body: editJson(r.body, (o) => Object.assign(o, { reason: "InternalError", code: 500 })) }
          : r,
    },
  },
  {
    name: "unknown-path-plain-404",
    mode: "wire",
    rules: ["doc1.paths.unknown-path-404"],
    models: "answers a path naming no resource with Go's plain-text `404 page not found` (a bare mux's NotFound handler) instead of a Status",
    wire: {
      response: (r) => (r.code === 404 && r.body.includes("the server could not find the requested resource") ? { ...r, body: "404 page not found\n" } : r),
    },
  },
  {
    name: "missing-name-accepted",
    mode: "wire",
    rules: ["doc1.errors.missing-required-field"],
    models: "accepts an object without a name instead of refusing it with 422 Required (a store that keys an unnamed object by the empty name)",
    wire: {
      response: (r) => {
        if (r.method !== "POST" || r.code !== 422 || !r.body.includes('"FieldValueRequired"')) return r;
        const causes = ((JSON.parse(r.body) as { details?: { causes?: { reason?: string; field?: string }[] } }).details?.causes ?? []).filter(
          (c) => c.reason === "FieldValueRequired" && c.field === "metadata.name",
        );
        return causes.length ? { ...r, code: 201, body: "{}" } : r;
      },
    },
  },
  {
    name: "create-namespace-from-url",
    mode: "emulator",
    rules: ["doc2.endpoints.create-namespace-mismatch"],
    models: "stores a created object in the URL's namespace whatever namespace its body names, instead of refusing the mismatch with 400",
    failpoints: ["create-namespace-from-url"],
  },
  {
    name: "stale-put-as-500",
    mode: "emulator",
    rules: ["doc1.put.stale-rv-409", "doc1.put.conditional-write"],
    models:
      "answers a PUT with a stale resourceVersion with 500 InternalError instead of a 409 Conflict a client may retry (the storage's conflict passed through unmapped)",
    failpoints: ["conflict-as-500"],
  },
  {
    name: "update-ignores-resource-version",
    mode: "emulator",
    rules: ["doc1.put.stale-rv-409", "doc1.put.conditional-write", "doc1.put.client-sends-rv"],
    models:
      "an update carrying a stale resourceVersion overwrites the object (last write wins) instead of 409 Conflict (client-go's fake clientset, and controller-runtime's fake client before it was fixed)",
    reference: "https://github.com/kubernetes-sigs/controller-runtime/pull/832",
    failpoints: ["update-ignores-resource-version"],
  },
  // ── Object names ────────────────────────────────────────────────────────────────────────
  {
    name: "duplicate-create-overwrites",
    mode: "emulator",
    rules: ["doc1.names.unique-in-scope", "doc1.names.cluster-scoped-unique"],
    models:
      "a create with a taken name replaces the stored object (an upsert) instead of answering 409 AlreadyExists (fabric8's Kubernetes mock server in CRUD mode)",
    reference: "https://github.com/fabric8io/kubernetes-client/issues/3095",
    failpoints: ["duplicate-create-overwrites"],
  },
  {
    name: "deleted-name-stays-taken",
    mode: "emulator",
    rules: ["doc1.names.reuse-after-delete"],
    models: "keeps a tombstone of each deleted key, so a name once deleted cannot be created again (409 AlreadyExists)",
    failpoints: ["deleted-name-stays-taken"],
  },
  {
    name: "generate-name-fixed-suffix",
    mode: "emulator",
    rules: ["doc1.fields.generate-name"],
    models:
      "builds generateName names with a suffix that is not random, so the second object from one prefix collides (409), as client-go's fake clientset, which ignores generateName, gives every such object the same name",
    reference: "https://github.com/kubernetes/client-go/issues/439",
    failpoints: ["generate-name-fixed-suffix"],
  },
  // ── Authorization and reviews ───────────────────────────────────────────────────────────
  {
    name: "rbac-ignores-verbs",
    mode: "emulator",
    rules: ["doc1.auth.rule-shape"],
    models: "an authorizer that matches a rule on its groups and resources only, so a rule grants every verb",
    failpoints: ["rbac-ignores-verbs"],
  },
  {
    name: "rolebinding-grants-cluster-wide",
    mode: "emulator",
    rules: ["doc1.paths.namespace-scope-authz"],
    models: "an authorizer that applies a RoleBinding's role in every namespace and at the cluster scope, as if it were a ClusterRoleBinding",
    failpoints: ["rolebinding-grants-cluster-wide"],
  },
  {
    name: "subject-access-review-always-allowed",
    mode: "wire",
    rules: ["doc1.auth.subject-access-review"],
    models: "answers every SubjectAccessReview with allowed: true (a review endpoint backed by an AlwaysAllow authorizer while requests are checked by RBAC)",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code === 201 && r.path.includes("/subjectaccessreviews")
          ? { ...r, body: editJson(r.body, (o) => (o.status = { ...(o.status as object), allowed: true })) }
          : r,
    },
  },
  {
    name: "token-review-authenticates-anything",
    mode: "wire",
    rules: ["doc1.auth.token-review"],
    models: "answers every TokenReview with authenticated: true, a made-up token included",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code === 201 && r.path.includes("/tokenreviews")
          ? { ...r, body: editJson(r.body, (o) => (o.status = { ...(o.status as object), authenticated: true })) }
          : r,
    },
  },
  {
    name: "reviews-named-and-listed",
    mode: "wire",
    rules: ["doc1.names.virtual-types-unnamed"],
    models: "names and keeps the review objects it answers (a generated metadata.name, and a list of reviews served), as if reviews were stored",
    wire: {
      response: (r) => {
        if (r.method === "POST" && r.code === 201 && /\/(subjectaccessreviews|tokenreviews)$/.test(pathOf(r.path)))
          return { ...r, body: editJson(r.body, (o) => (metaOf(o).name = "review-1")) };
        const listed = /^\/apis\/([^/]+\/v1)\/(subjectaccessreviews|tokenreviews)$/.exec(pathOf(r.path));
        if (r.method === "GET" && listed) {
          const kind = listed[2] === "tokenreviews" ? "TokenReviewList" : "SubjectAccessReviewList";
          return { ...r, code: 200, body: JSON.stringify({ kind, apiVersion: listed[1], metadata: {}, items: [] }) };
        }
        return r;
      },
    },
  },
  // ── Admission webhooks ──────────────────────────────────────────────────────────────────
  {
    name: "webhook-side-effects-unchecked",
    mode: "emulator",
    rules: ["doc1.errors.dry-run-side-effects-fail"],
    models:
      "registers webhooks without checking sideEffects (admissionregistration v1beta1 defaulted it to Unknown), so a dry run can reach a webhook with side effects",
    failpoints: ["webhook-side-effects-unchecked"],
  },
  // ── Rate limit and proxy ────────────────────────────────────────────────────────────────
  {
    name: "rate-limit-429-without-retry-after",
    mode: "wire",
    // The runner's detection must meet it too: it is what makes the capability appear.
    wholeRun: true,
    rules: ["doc1.limits.rate-limit"],
    models: "limits bursts of lists with a 429 that carries no Retry-After and no retryAfterSeconds (a hand-rolled limiter in front of the API)",
    wire: {
      response: (r) => {
        if (r.method !== "GET" || r.code !== 200 || !COLLECTION.test(pathOf(r.path)) || /[?&]watch=/.test(r.path)) return r;
        const now = Date.now();
        while (recentLists.length && (recentLists[0] ?? 0) < now - 1000) recentLists.shift();
        recentLists.push(now);
        return recentLists.length > 32 ? { ...r, code: 429, body: statusBody(429, "TooManyRequests", "too many requests") } : r;
      },
    },
  },
  {
    name: "legacy-proxy-type-in-discovery",
    mode: "wire",
    // The runner's detection must meet it too: it is what makes the capability appear.
    wholeRun: true,
    rules: ["doc1.verbs.proxy-single"],
    models: "lists a collection-wide proxy type in /api/v1 discovery (the removed /api/v1/proxy/... paths of old servers) beside pods/proxy",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && pathOf(r.path) === "/api/v1" && r.body.includes('"APIResourceList"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                const resources = o.resources as Record<string, unknown>[];
                for (const name of ["pods/proxy", "proxy"])
                  resources.push({
                    name,
                    singularName: "",
                    namespaced: name !== "proxy",
                    kind: "PodProxyOptions",
                    verbs: ["create", "delete", "get", "patch", "update"],
                  });
              }),
            }
          : r,
    },
  },
  // ── Deletion and finalizers ─────────────────────────────────────────────────────────────
  {
    name: "delete-ignores-finalizers",
    mode: "emulator",
    rules: ["doc1.deletion.two-phases", "doc1.deletion.live-to-terminating"],
    models:
      "removes an object on delete at once, whatever finalizers it has (controller-runtime's fake client before finalizer support, client-go's fake clientset)",
    reference: "https://github.com/kubernetes-sigs/controller-runtime/pull/1399",
    failpoints: ["delete-ignores-finalizers"],
  },
  {
    name: "delete-ignores-preconditions",
    mode: "emulator",
    rules: ["doc1.delete-options.standard-fields"],
    models: "a DELETE that ignores its preconditions (uid, resourceVersion) and deletes whatever is stored",
    failpoints: ["delete-ignores-preconditions"],
  },
  {
    name: "last-finalizer-keeps-object",
    mode: "emulator",
    rules: ["doc1.deletion.last-finalizer-removes"],
    models: "keeps a terminating object stored after its last finalizer is removed (nothing completes the deletion)",
    failpoints: ["last-finalizer-keeps-object"],
  },
  {
    name: "finalizers-removed-last-first",
    mode: "emulator",
    rules: ["doc1.deletion.finalizers-any-order"],
    models: "treats finalizers as a stack: an update that removes any but the last-listed finalizers is refused",
    failpoints: ["finalizers-removed-last-first"],
  },
  {
    name: "force-option-presence-counts",
    mode: "emulator",
    rules: ["doc1.delete-options.force-default-false"],
    models: "reads ignoreStoreReadErrorWithClusterBreakingPotential: false as true (a *bool checked for nil instead of for its value)",
    failpoints: ["force-option-presence-counts"],
  },
  {
    name: "namespace-delete-orphans-content",
    mode: "emulator",
    rules: ["doc1.paths.namespace-delete-cascades"],
    models: "the namespace controller removes a Terminating namespace without deleting the objects inside it",
    failpoints: ["namespace-delete-orphans-content"],
  },
  {
    name: "namespace-controller-stopped",
    mode: "emulator",
    rules: ["doc3.service.cm-controller-reconciles", "doc1.paths.namespace-delete-cascades"],
    models: "no namespace controller runs (a bare API server without a controller manager, as envtest): a Terminating namespace stays so, with its content",
    failpoints: ["namespace-controller-stopped"],
  },
  // ── Dry run ─────────────────────────────────────────────────────────────────────────────
  {
    name: "dry-run-skips-validation",
    mode: "emulator",
    rules: ["doc1.dry-run.stages-run", "doc1.query.dry-run-all"],
    models: "a dry run that skips validation, accepting an object the real request refuses",
    failpoints: ["dry-run-skips-validation"],
  },
  {
    name: "dry-run-skips-admission",
    mode: "emulator",
    rules: ["doc1.dry-run.builtin-admission"],
    models: "a dry run that skips built-in admission (NamespaceLifecycle), accepting a create in a namespace that does not exist",
    failpoints: ["dry-run-skips-admission"],
  },
  {
    name: "dry-run-answers-status",
    mode: "wire",
    rules: ["doc1.dry-run.response-object"],
    models:
      "answers a dry-run write without the object that would have been stored, here a bare Success Status (controller-runtime's fake client returns at once on DryRunAll, filling nothing in)",
    reference: "https://github.com/kubernetes-sigs/controller-runtime/issues/3365",
    wire: {
      response: (r) =>
        isDryRun(r.path) && r.method !== "GET" && r.code < 300 && isJsonObject(r.body) && !r.body.includes('"kind":"Status"')
          ? { ...r, body: JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: r.code }) }
          : r,
    },
  },
  {
    name: "dry-run-omits-generated-values",
    mode: "wire",
    rules: ["doc1.dry-run.generated-values-differ"],
    models: "answers a dry-run create without the values the server generates (no name from generateName, no uid, no creationTimestamp)",
    wire: {
      response: (r) =>
        isDryRun(r.path) && r.method === "POST" && r.code === 201 && isJsonObject(r.body) && !r.body.includes('"kind":"Status"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                const m = metaOf(o);
                if (m.generateName) delete m.name;
                delete m.uid;
                delete m.creationTimestamp;
              }),
            }
          : r,
    },
  },
  {
    name: "empty-dry-run-is-dry-run",
    mode: "wire",
    rules: ["doc1.query.dry-run-absent-normal"],
    models: "treats an empty dryRun parameter as a dry run (the parameter's presence counts, not its value), so the write is not made",
    wire: {
      request: (method, path) => (method !== "GET" ? path.replace(/([?&])dryRun=(&|$)/, "$1dryRun=All$2") : path),
    },
  },
  {
    name: "dry-run-refused",
    mode: "wire",
    rules: ["doc1.versioning.cap-dry-run"],
    models: "refuses dryRun=All with 400 as servers did while dry run was an alpha feature behind a gate",
    wire: {
      response: (r) =>
        isDryRun(r.path) && r.method !== "GET" ? { ...r, code: 400, body: statusBody(400, "BadRequest", "the dryRun feature is disabled") } : r,
    },
  },
];
