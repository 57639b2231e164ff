/**
 * Faults of the read path (doc1's list table, chunked lists and continue tokens, get with a
 * resourceVersion, versions, history compaction), each modelled on a real server's or fake's
 * bug: kine's revision and compaction bugs, the client-go fake clientset and fabric8's mock
 * server ignoring ListOptions, and paging that repeats, skips or loses its place. Wire faults
 * bend the query or the answer; the storage bugs are emulator failpoints (lib/emulator/failpoints.ts).
 */
import type { Fault, WireFault } from "../types.js";
import type { ProxiedResponse } from "../wire-proxy.js";
import { editJson, statusBody } from "./wire-edits.js";

type Json = Record<string, unknown>;

/** The request's query parameters. */
const queryOf = (path: string): URLSearchParams => new URLSearchParams(path.includes("?") ? path.slice(path.indexOf("?") + 1) : "");
const pathOf = (path: string): string => path.split("?")[0] ?? "";

/** The path with one query parameter removed (a server that ignores it). */
function withoutParam(path: string, name: string): string {
  const i = path.indexOf("?");
  if (i < 0) return path;
  const q = new URLSearchParams(path.slice(i + 1));
  if (!q.has(name)) return path;
  q.delete(name);
  const rest = q.toString();
  return rest ? `${path.slice(0, i)}?${rest}` : path.slice(0, i);
}

/** A successful list answer (any collection, JSON). */
const isList = (r: ProxiedResponse): boolean => r.method === "GET" && r.code === 200 && /^\{"kind":"[A-Za-z]*List"/.test(r.body);
/** A GET of a collection, not a watch: the path ends in a resource type, not an object name. */
const isListRequest = (method: string, path: string): boolean => method === "GET" && !queryOf(path).has("watch") && !pathOf(path).includes("/watch/");
const listMeta = (o: Json): Json => (o.metadata ??= {}) as Json;

const EXPIRED = (message: string): string => statusBody(410, "Expired", message);
const GONE_LIST = EXPIRED("The resourceVersion for the provided list is too old.");

/** A ListOptions parameter the server never looks at, for the faults of fakes that accept any combination. */
const ignoresParam = (name: string, when: (q: URLSearchParams) => boolean): WireFault["wire"] => ({
  request: (method, path) => (isListRequest(method, path) && when(queryOf(path)) ? withoutParam(path, name) : path),
});

/** A continue token in the real format (wire-facts §9), for faults that hand out tokens of their own. */
const realToken = (rv: number, start: string): string => Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start }), "utf8").toString("base64url");

const WRAP = "page-handle:";

export const READ_PATH_FAULTS: readonly Fault[] = [
  // ---- the list table: resourceVersion and resourceVersionMatch ----
  {
    name: "list-ignores-resource-version",
    mode: "emulator",
    rules: [
      "doc1.list-rv.nomatch-limit-no-continue-rv-other-exact",
      "doc1.list-rv.exact",
      "doc1.list-rv.exact-limit-no-continue-rv-other-exact",
      "doc1.list-rv.exact-collection-rv",
    ],
    models:
      "lists ignore resourceVersion and resourceVersionMatch and always answer the latest state, as the client-go fake clientset and fabric8's mock server in CRUD mode do",
    failpoints: ["list-ignores-resource-version"],
  },
  {
    name: "list-echoes-requested-rv",
    mode: "emulator",
    rules: ["doc1.query.rvm-unhonored-as-unset", "doc1.list-rv.not-older-than", "doc1.list-rv.not-older-than-list-rv-only", "doc1.query.rvm-values"],
    models:
      "kine answered a list at a revision it could not serve with its latest data labelled with the requested revision (Exact included), so the items are newer than the list says",
    reference: "https://github.com/k3s-io/kine/issues/215",
    failpoints: ["list-echoes-requested-rv"],
  },
  {
    name: "list-rv-older-than-items",
    mode: "wire",
    rules: [
      "doc1.fields.list-rv",
      "doc1.list-rv.most-recent",
      "doc1.list-rv.nomatch-limit-unset-rv-unset-most-recent",
      "doc1.list-rv.nomatch-limit-no-continue-rv-unset-most-recent",
    ],
    models:
      "a list whose resourceVersion is not the store's revision it was read at but its oldest item's version, so newer items sit in an older list (list revisions derived from the items, as kine and fake trackers got wrong)",
    wire: {
      response: (r) => {
        if (!isList(r) || !r.body.includes('"kind":"ConfigMapList"') || queryOf(r.path).has("resourceVersion")) return r;
        return {
          ...r,
          body: editJson(r.body, (o) => {
            const rvs = ((o.items as { metadata?: { resourceVersion?: string } }[] | undefined) ?? [])
              .map((i) => Number(i.metadata?.resourceVersion ?? NaN))
              .filter(Number.isFinite);
            if (rvs.length > 1) listMeta(o).resourceVersion = String(Math.min(...rvs));
          }),
        };
      },
    },
  },
  {
    name: "list-rv-0-expired",
    mode: "wire",
    rules: ["doc1.list-rv.nomatch-limit-unset-rv-0-any", "doc1.list-rv.nomatch-limit-no-continue-rv-0-any", "doc1.list-rv.any"],
    models: 'a server that reads resourceVersion "0" as revision 0 of its store, long compacted, and answers 410 instead of serving any state',
    wire: {
      response: (r) => {
        const q = queryOf(r.path);
        return isList(r) && q.get("resourceVersion") === "0" && !q.has("resourceVersionMatch") && !q.has("continue") ? { ...r, code: 410, body: GONE_LIST } : r;
      },
    },
  },
  {
    name: "not-older-than-rv-0-expired",
    mode: "wire",
    rules: ["doc1.list-rv.notolderthan-limit-unset-rv-0-any", "doc1.list-rv.notolderthan-limit-no-continue-rv-0-any"],
    models:
      'a server that reads resourceVersionMatch=NotOlderThan with resourceVersion "0" as "not older than revision 0 of a compacted store" and answers 410',
    wire: {
      response: (r) => {
        const q = queryOf(r.path);
        return isList(r) && q.get("resourceVersion") === "0" && q.get("resourceVersionMatch") === "NotOlderThan" ? { ...r, code: 410, body: GONE_LIST } : r;
      },
    },
  },
  {
    name: "not-older-than-served-stale",
    mode: "wire",
    rules: ["doc1.list-rv.not-older-than", "doc1.list-rv.notolderthan-limit-no-continue-rv-other-not-older-than"],
    models:
      "a not-older-than list served from a cache that lags one revision behind the version asked for, without waiting for it to catch up (a watch cache without the wait for fresh data)",
    wire: {
      response: (r) => {
        const q = queryOf(r.path);
        const rv = Number(q.get("resourceVersion") ?? "0");
        const notOlderThan = q.get("resourceVersionMatch") === "NotOlderThan" || (!q.has("resourceVersionMatch") && !q.has("limit"));
        if (!isList(r) || !(rv > 1) || !notOlderThan || q.has("continue")) return r;
        return {
          ...r,
          body: editJson(r.body, (o) => {
            listMeta(o).resourceVersion = String(rv - 1);
            o.items = ((o.items as { metadata?: { resourceVersion?: string } }[] | undefined) ?? []).filter(
              (i) => Number(i.metadata?.resourceVersion ?? "0") <= rv - 1,
            );
          }),
        };
      },
    },
  },
  {
    name: "list-accepts-exact-without-rv",
    mode: "wire",
    rules: ["doc1.list-rv.exact-limit-unset-rv-unset-invalid", "doc1.list-rv.exact-limit-no-continue-rv-unset-invalid", "doc1.query.rvm-needs-rv"],
    models:
      "accepts resourceVersionMatch=Exact without a resourceVersion and lists the latest state, as servers and fakes that skip ListOptions validation (client-go fake clientset, fabric8 mock server) do",
    wire: ignoresParam("resourceVersionMatch", (q) => q.get("resourceVersionMatch") === "Exact" && !q.get("resourceVersion")),
  },
  {
    name: "list-accepts-not-older-than-without-rv",
    mode: "wire",
    rules: ["doc1.list-rv.notolderthan-limit-unset-rv-unset-invalid", "doc1.list-rv.notolderthan-limit-no-continue-rv-unset-invalid"],
    models: "accepts resourceVersionMatch=NotOlderThan without a resourceVersion and lists the latest state (ListOptions validation skipped)",
    wire: ignoresParam("resourceVersionMatch", (q) => q.get("resourceVersionMatch") === "NotOlderThan" && !q.get("resourceVersion")),
  },
  {
    name: "list-accepts-exact-at-rv-0",
    mode: "wire",
    rules: ["doc1.list-rv.exact-limit-unset-rv-0-invalid", "doc1.list-rv.exact-limit-no-continue-rv-0-invalid"],
    models: 'accepts resourceVersionMatch=Exact with resourceVersion "0" and serves any state (ListOptions validation skipped)',
    wire: ignoresParam("resourceVersionMatch", (q) => q.get("resourceVersionMatch") === "Exact" && q.get("resourceVersion") === "0"),
  },
  {
    name: "list-accepts-match-with-continue",
    mode: "wire",
    rules: ["doc1.list-rv.match-with-continue-invalid"],
    models: "accepts resourceVersionMatch together with continue and pages on (ListOptions validation skipped)",
    wire: ignoresParam("resourceVersionMatch", (q) => q.has("continue")),
  },
  {
    name: "list-accepts-unknown-match",
    mode: "wire",
    rules: ["doc1.query.rvm-values"],
    models: "accepts a resourceVersionMatch value other than Exact and NotOlderThan and lists as if it were unset",
    wire: ignoresParam(
      "resourceVersionMatch",
      (q) => q.has("resourceVersionMatch") && !["Exact", "NotOlderThan"].includes(q.get("resourceVersionMatch") ?? ""),
    ),
  },
  {
    name: "list-accepts-continue-with-rv",
    mode: "wire",
    rules: ["doc1.list-rv.nomatch-limit-continue-rv-other-invalid", "doc1.errors.400-continue-with-rv"],
    models: "accepts continue together with a resourceVersion and pages on, instead of the 400 for a request that names two starting points",
    wire: ignoresParam("resourceVersion", (q) => q.has("continue") && !["", "0"].includes(q.get("resourceVersion") ?? "")),
  },
  {
    name: "list-predates-resource-version-match",
    mode: "wire",
    rules: ["doc1.versioning.rvm-since-1-19"],
    models: "a server older than 1.19, which does not know resourceVersionMatch and ignores it like any unknown parameter",
    wire: ignoresParam("resourceVersionMatch", () => true),
  },
  // ---- chunked lists and continue tokens ----
  {
    name: "list-ignores-limit",
    mode: "wire",
    rules: ["doc1.query.limit", "doc1.chunking.step1-up-to-n", "doc1.versioning.cap-chunked-lists"],
    models: "ignores limit and answers the whole collection in one response, as the client-go fake clientset does",
    reference: "https://github.com/kubernetes/client-go/issues/793",
    wire: ignoresParam("limit", () => true),
  },
  {
    name: "list-drops-continue-token",
    mode: "wire",
    rules: ["doc1.chunking.step1-continue-if-more", "doc1.fields.continue-token"],
    models:
      "cuts a list at the limit but leaves metadata.continue out, so a client cannot get past the first chunk (clusternet's aggregated lists lost the token)",
    reference: "https://github.com/clusternet/clusternet/pull/131",
    wire: { response: (r) => (isList(r) && r.body.includes('"continue":') ? { ...r, body: editJson(r.body, (o) => delete listMeta(o).continue) } : r) },
  },
  {
    name: "list-ignores-continue",
    mode: "wire",
    rules: [
      "doc1.query.continue",
      "doc1.list-rv.nomatch-limit-continue-rv-unset-continuation",
      "doc1.list-rv.nomatch-limit-continue-rv-0-continuation",
      "doc1.chunking.step2-next-chunk",
    ],
    models: "ignores the continue parameter and answers the first chunk again, as the client-go fake clientset's list does",
    reference: "https://github.com/kubernetes/kubernetes/issues/57927",
    wire: ignoresParam("continue", () => true),
  },
  {
    name: "continue-skips-item",
    mode: "emulator",
    rules: [
      "doc1.chunking.step2-next-chunk",
      "doc1.list-rv.continuation",
      "doc1.paths.list-all-namespaces",
      "doc1.list-rv.nomatch-limit-continue-rv-unset-continuation",
    ],
    models:
      "a continue token that resumes one item too far, so each chunk after the first loses the item at the boundary (an off-by-one in the token's start key)",
    failpoints: ["continue-skips-item"],
  },
  {
    name: "continue-reads-latest",
    mode: "emulator",
    rules: ["doc1.chunking.step2-rv-constant", "doc1.list-rv.continuation", "doc1.service.consistent-lists", "doc1.list-rv.continuation-token"],
    models:
      "reads each chunk after the first at the latest revision instead of the first chunk's, so objects written while paging show up and the chunks are no snapshot (a store that pages by key alone)",
    failpoints: ["continue-reads-latest"],
  },
  {
    name: "continue-token-is-a-handle",
    mode: "wire",
    rules: ["doc1.list-rv.continuation-token"],
    models: "hands out continue tokens of its own, an opaque handle that does not encode the list's version and last position",
    wire: {
      // The handle wraps the real token so that paging still works; only its content is wrong.
      request: (method, path) => {
        const token = queryOf(path).get("continue");
        if (!isListRequest(method, path) || !token) return path;
        const inner = Buffer.from(token, "base64url").toString("utf8");
        return inner.startsWith(WRAP) ? `${withoutParam(path, "continue")}${path.includes("?") ? "&" : "?"}continue=${inner.slice(WRAP.length)}` : path;
      },
      response: (r) => {
        if (!isList(r) || !r.body.includes('"continue":"')) return r;
        return {
          ...r,
          body: editJson(r.body, (o) => {
            const m = listMeta(o);
            m.continue = Buffer.from(`${WRAP}${String(m.continue)}`, "utf8").toString("base64url");
          }),
        };
      },
    },
  },
  {
    name: "last-chunk-carries-continue",
    mode: "wire",
    rules: ["doc1.chunking.step3-empty-at-end", "doc1.fields.continue-empty-at-end"],
    models: "sets metadata.continue on the last chunk too, pointing past the end, so the client asks once more for an empty chunk",
    wire: {
      response: (r) => {
        if (!isList(r) || !queryOf(r.path).has("limit") || r.body.includes('"continue":"')) return r;
        return {
          ...r,
          body: editJson(r.body, (o) => {
            const m = listMeta(o);
            if (((o.items as unknown[] | undefined) ?? []).length > 0) m.continue = realToken(Number(m.resourceVersion), "\uffff");
          }),
        };
      },
    },
  },
  {
    name: "remaining-count-dropped",
    mode: "wire",
    rules: ["doc1.fields.remaining-count-value"],
    models: "leaves remainingItemCount out of every chunk, as kube-apiserver did for PartialObjectMetadataList",
    reference: "https://github.com/kubernetes/kubernetes/pull/107177",
    wire: {
      response: (r) =>
        isList(r) && r.body.includes('"remainingItemCount":') ? { ...r, body: editJson(r.body, (o) => delete listMeta(o).remainingItemCount) } : r,
    },
  },
  {
    name: "remaining-count-on-complete-list",
    mode: "wire",
    rules: ["doc1.fields.remaining-count-omitted-complete"],
    models: "sets remainingItemCount 0 on a complete list and on the last chunk instead of leaving it out",
    wire: {
      response: (r) => (isList(r) && !r.body.includes('"continue":"') ? { ...r, body: editJson(r.body, (o) => (listMeta(o).remainingItemCount = 0)) } : r),
    },
  },
  {
    name: "remaining-count-with-selectors",
    mode: "emulator",
    rules: ["doc1.fields.remaining-count-no-selectors"],
    models:
      "reports remainingItemCount on a selector list, counting every object left whether it matches or not (the option kubernetes#75993 rejected, since filtering happens above storage)",
    reference: "https://github.com/kubernetes/kubernetes/pull/75993",
    failpoints: ["remaining-count-with-selectors"],
  },
  {
    name: "all-namespaces-list-one-namespace",
    mode: "wire",
    rules: ["doc1.paths.list-all-namespaces"],
    models: "answers the all-namespaces path of a namespaced type with one namespace's objects only (a server scoped to a default namespace)",
    wire: {
      response: (r) => {
        if (!isList(r) || !/^\/(api\/v1|apis\/[^/]+\/[^/]+)\/[a-z]+$/.test(pathOf(r.path)) || pathOf(r.path).endsWith("/namespaces")) return r;
        return {
          ...r,
          body: editJson(r.body, (o) => {
            const items = (o.items as { metadata?: { namespace?: string } }[] | undefined) ?? [];
            const first = items[0]?.metadata?.namespace;
            if (first !== undefined) o.items = items.filter((i) => i.metadata?.namespace === first);
          }),
        };
      },
    },
  },
  // ---- get with a resourceVersion, and versions from the future ----
  {
    name: "get-serves-previous-version",
    mode: "emulator",
    rules: ["doc1.get-rv.unset-most-recent"],
    models: "answers a get without resourceVersion from a cache one write behind (the object's previous version), instead of a quorum read of the latest",
    failpoints: ["get-serves-previous-version"],
  },
  {
    name: "get-rv-0-expired",
    mode: "wire",
    rules: ["doc1.get-rv.zero-any"],
    models: 'a server that reads a get\'s resourceVersion "0" as revision 0 of its store and answers 410 instead of any version of the object',
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && queryOf(r.path).get("resourceVersion") === "0" && /\/configmaps\/[^/]+$/.test(pathOf(r.path))
          ? { ...r, code: 410, body: EXPIRED("too old resource version: 0") }
          : r,
    },
  },
  {
    name: "get-at-version-not-found",
    mode: "wire",
    rules: ["doc1.get-rv.other-not-older-than", "doc1.query.rv-param"],
    models: "kine answered a get at a given revision as if the key did not exist (404) instead of with the object not older than that revision",
    reference: "https://github.com/k3s-io/kine/issues/215",
    wire: {
      response: (r) => {
        const rv = queryOf(r.path).get("resourceVersion");
        const m = /\/configmaps\/([^/]+)$/.exec(pathOf(r.path));
        return r.method === "GET" && r.code === 200 && m && rv && rv !== "0"
          ? { ...r, code: 404, body: statusBody(404, "NotFound", `configmaps "${m[1]}" not found`) }
          : r;
      },
    },
  },
  {
    name: "future-rv-served",
    mode: "emulator",
    rules: ["doc1.errors.504-too-large-rv", "doc1.errors.retry-after-unrecognized-rv", "doc1.headers.retry-after"],
    models:
      "kine pretended a requested revision from the future was its current one and answered at once, instead of waiting and answering 504 (or Retry-After)",
    reference: "https://github.com/k3s-io/kine/pull/231",
    failpoints: ["future-rv-served"],
  },
  // ---- versions ----
  {
    name: "resource-version-as-number",
    mode: "wire",
    rules: ["doc1.versioning.rv-string"],
    models: "writes resourceVersion as a JSON number instead of a string",
    wire: {
      response: (r) =>
        r.code < 300 && r.body.startsWith("{") && /\/configmaps(\/|\?|$)/.test(pathOf(r.path) + (r.path.includes("?") ? "?" : ""))
          ? { ...r, body: r.body.replace(/"resourceVersion":"([0-9]+)"/g, '"resourceVersion":$1') }
          : r,
    },
  },
  {
    name: "update-keeps-resource-version",
    mode: "emulator",
    rules: ["doc1.versioning.rv-ordered-per-type", "doc1.versioning.rv-compare"],
    models:
      'answers an update with the resourceVersion the object had rather than a newer one, as fabric8\'s mock server in CRUD mode never moved a version past "1" (and the client-go fake clientset keeps versions as given)',
    reference: "https://github.com/fabric8io/kubernetes-client/issues/3255",
    failpoints: ["update-keeps-resource-version"],
  },
  // ---- history compaction ----
  {
    name: "compacted-list-served",
    mode: "emulator",
    rules: [
      "doc1.list-rv.exact-unavailable-410",
      "doc1.errors.410-history-gone",
      "doc1.errors.410-expired-continue",
      "doc1.list-rv.continuation-unavailable-410",
    ],
    models:
      "serves lists at a compacted revision (Exact, a paged list at a version, an old continue token) from the latest state instead of 410 Expired, as kine did before it sent ErrCompacted for every compacted read",
    reference: "https://github.com/k3s-io/kine/pull/231",
    failpoints: ["compacted-list-served"],
  },
  {
    name: "expired-continue-as-500",
    mode: "wire",
    rules: ["doc1.errors.410-expired-continue", "doc1.list-rv.continuation-unavailable-410"],
    models: "passes storage's compaction error for an expired continue token through as 500 InternalError instead of mapping it to 410 Expired",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 410 && queryOf(r.path).has("continue")
          ? { ...r, code: 500, body: statusBody(500, "InternalError", "etcdserver: mvcc: required revision has been compacted") }
          : r,
    },
  },
  {
    name: "expired-continue-restarts-from-start",
    mode: "wire",
    rules: ["doc1.errors.410-client-restart"],
    models:
      "hands out, with the 410 for an expired continue token, a token that lists from the start again, so a client that goes on with it reads the first chunk twice",
    wire: {
      response: (r) => {
        if (r.method !== "GET" || r.code !== 410 || !queryOf(r.path).has("continue") || !r.body.includes('"continue":"')) return r;
        return { ...r, body: editJson(r.body, (o) => (listMeta(o).continue = realToken(-1, "\u0000"))) };
      },
    },
  },
  {
    name: "watch-compacted-ends-silently",
    mode: "wire",
    rules: ["doc1.watch-events.gone-410", "doc1.watch-events.error-type", "doc1.errors.410-history-gone"],
    models:
      "ends a watch from a compacted version without the ERROR event carrying 410 Expired (the stream just closes), as kube-apiserver often does for events served from etcd",
    reference: "https://github.com/kubernetes/kubernetes/issues/104171",
    wire: { watchLine: (l) => (l.includes('"type":"ERROR"') && l.includes('"code":410') ? undefined : l) },
  },
  {
    name: "watch-at-compact-revision-expired",
    mode: "emulator",
    rules: ["doc1.watch-events.gone-client-relist"],
    models:
      "refuses a watch from exactly the compaction revision with 410, though etcd keeps that revision watchable, so a client that lists and watches again right after a compaction is turned away (t4's kine backend)",
    reference: "https://github.com/t4db/t4/issues/163",
    failpoints: ["watch-at-compact-revision-expired"],
  },
  // ---- watch events ----
  {
    name: "watch-reports-create-as-modified",
    mode: "wire",
    rules: ["doc1.watch-events.added"],
    models: "reports a created object as MODIFIED in a watch instead of ADDED",
    wire: { watchLine: (l) => l.replace('"type":"ADDED"', '"type":"MODIFIED"') },
  },
];
