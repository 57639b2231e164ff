/**
 * The fuzzer's request generator: fast-check arbitraries for whole HTTP requests to an API
 * server (method, path, query, headers, body). Test tooling shared by test/fuzz/fuzz.test.ts and
 * scripts/fuzz.ts; it speaks HTTP only, so it imports nothing of the emulator and can aim at any
 * server. Paths are the served resources (the test seeds them: namespace "fuzz", the
 * widgets.fuzz.tollgate.dev CRD, a few objects) with mutations; bodies are valid objects of
 * several kinds, then mutated, in every encoding the API takes, plus junk.
 *
 * Options bound the inputs: `TEST_OPTIONS` is what the `npm test` property sends, `FULL_OPTIONS`
 * the long run's. `known` names the generators that found defects fixed in #15 (KNOWN_DEFECTS).
 */
import fc from "fast-check";
import { dump } from "js-yaml";
import { encodeCbor } from "../../lib/wire/cbor.js";
import { encodeObject } from "../../lib/wire/protobuf/index.js";

/** Who sends a request; the runner turns this into an Authorization header (or none). */
export type Caller = "admin" | "serviceaccount" | "anonymous" | "garbage";

export interface FuzzRequest {
  method: string;
  /** Path and query, already percent-encoded where HTTP requires it. */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  caller: Caller;
  /** A watch that asked for timeoutSeconds 1 or 2: its stream must end by then. */
  watchSeconds?: number;
  /** A watch with any other timeout: only its answer's start is checked, then the client hangs up. */
  openWatch?: boolean;
}

/**
 * Generators that found defects other #15 work fixed (the area named), so they can be switched
 * off by name (`npm run fuzz -- --known ...`) to tell a regression of one from a new finding.
 */
export const KNOWN_DEFECTS = {
  /** YAML alias bombs (limits): billions of nodes from a few KiB. */
  yamlAliasBomb: "limits",
  /** JSON and YAML nesting beyond a few hundred levels, up to maxDepth (limits: a 500 stack overflow past ~5000). */
  deepNesting: "limits",
  /** Methods llhttp does not know (FOO, lowercase get): a reset, now Go's raw 400 (limits). */
  unknownMethods: "limits",
  /** watch timeoutSeconds of 2147484 and more (watch): Node's timer overflowed to 1 ms. Open watches: not in npm test. */
  hugeWatchTimeout: "watch",
  /** `__proto__` keys in bodies (keys). */
  protoKeys: "keys",
} as const;

export type KnownDefect = keyof typeof KNOWN_DEFECTS;

export interface GeneratorOptions {
  /** Largest nesting of a deep body (JSON arrays/objects, YAML flow). */
  maxDepth: number;
  /** Largest generated string in a body. */
  maxStringBytes: number;
  /** Send requests to /tollgate/admin that change the server (clock, compaction, corruption of objects that do not exist). */
  admin: boolean;
  /** Watches whose timeout is absent, 0, negative or long (the client hangs up after the deadline). */
  openWatches: boolean;
  /** Bodies above the server's 3 MiB limit. */
  oversized: boolean;
  known: ReadonlySet<KnownDefect>;
}

/** What `npm test` sends: nesting to a few hundred levels, no open watches (each would hold a batch for the deadline), no 3 MiB bodies. */
export const TEST_OPTIONS: GeneratorOptions = {
  maxDepth: 300,
  maxStringBytes: 100 * 1024,
  admin: true,
  openWatches: false,
  oversized: false,
  known: new Set<KnownDefect>(["yamlAliasBomb", "unknownMethods", "protoKeys"]),
};

export const FULL_OPTIONS: GeneratorOptions = {
  maxDepth: 20_000,
  maxStringBytes: 100 * 1024,
  admin: true,
  openWatches: true,
  oversized: true,
  known: new Set(Object.keys(KNOWN_DEFECTS) as KnownDefect[]),
};

/** The objects the runner seeds (seedRequests) and the generator names. */
export const FUZZ_NAMESPACE = "fuzz";
export const CRD_GROUP = "fuzz.tollgate.dev";
const NAMES = ["fuzz-a", "fuzz-b", "fuzz-c", "default", "fuzzer"];
const NAMESPACES = [FUZZ_NAMESPACE, FUZZ_NAMESPACE, "default", "kube-system", "nope"];

interface Resource {
  /** e.g. /api/v1 or /apis/events.k8s.io/v1 */
  prefix: string;
  plural: string;
  namespaced: boolean;
  subresources: string[];
}

const res = (prefix: string, plural: string, namespaced: boolean, subresources: string[] = []): Resource => ({ prefix, plural, namespaced, subresources });

export const RESOURCES: Resource[] = [
  res("/api/v1", "configmaps", true),
  res("/api/v1", "events", true),
  res("/api/v1", "serviceaccounts", true, ["token"]),
  res("/api/v1", "namespaces", false, ["status", "finalize"]),
  res("/apis/events.k8s.io/v1", "events", true),
  res("/apis/coordination.k8s.io/v1", "leases", true),
  res("/apis/rbac.authorization.k8s.io/v1", "roles", true),
  res("/apis/rbac.authorization.k8s.io/v1", "rolebindings", true),
  res("/apis/rbac.authorization.k8s.io/v1", "clusterroles", false),
  res("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", false),
  res("/apis/admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", false),
  res("/apis/admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", false),
  res("/apis/apiextensions.k8s.io/v1", "customresourcedefinitions", false, ["status"]),
  res("/apis/authorization.k8s.io/v1", "selfsubjectaccessreviews", false),
  res("/apis/authorization.k8s.io/v1", "selfsubjectrulesreviews", false),
  res("/apis/authorization.k8s.io/v1", "subjectaccessreviews", false),
  res("/apis/authentication.k8s.io/v1", "tokenreviews", false),
  res("/apis/authentication.k8s.io/v1", "selfsubjectreviews", false),
  res(`/apis/${CRD_GROUP}/v1`, "widgets", true, ["status"]),
  res(`/apis/${CRD_GROUP}/v1beta1`, "widgets", true, ["status"]),
  res("/apis/apps/v1", "deployments", true, ["scale"]),
];

const FIXED_PATHS = [
  "/",
  "/api",
  "/api/v1",
  "/apis",
  "/apis/events.k8s.io",
  "/apis/events.k8s.io/v1",
  `/apis/${CRD_GROUP}/v1`,
  "/openapi/v2",
  "/openapi/v3",
  "/openapi/v3/api/v1",
  "/openapi/v3/apis/events.k8s.io/v1",
  "/openapi/v3/apis/nope/v9",
  "/version",
  "/healthz",
  "/healthz/etcd",
  "/livez",
  "/readyz",
  "/readyz/nope",
  "/metrics",
  "/.well-known/openid-configuration",
];

// ---------------------------------------------------------------- paths

/** A path segment: a good name, or something odd. */
function segmentArb(pool: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: pool.length > 0 ? 8 : 0, arbitrary: fc.constantFrom(...pool, "x") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "",
        ".",
        "..",
        "%2e%2e",
        "%2F",
        "a%2Fb",
        "a%00b",
        "%ZZ",
        "%",
        "a%20b",
        "%C3%A9",
        "%FF%FE",
        "UPPER",
        "a:b",
        "a;b=c",
        "-x-",
        "~",
        "x".repeat(254),
        "x".repeat(300),
        "y".repeat(5000),
      ),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9.-]{1,70}$/) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) },
  );
}

function resourcePathArb(): fc.Arbitrary<string> {
  return fc
    .record({
      r: fc.constantFrom(...RESOURCES),
      ns: segmentArb(NAMESPACES),
      name: fc.option(segmentArb(NAMES), { nil: undefined, freq: 3 }),
      sub: fc.option(fc.oneof(fc.constantFrom("status", "finalize", "token", "scale", "log", "junk"), segmentArb([])), { nil: undefined, freq: 5 }),
      useSub: fc.boolean(),
      legacyWatch: fc.integer({ min: 0, max: 15 }),
    })
    .map(({ r, ns, name, sub, useSub, legacyWatch }) => {
      const subName = useSub && r.subresources.length > 0 ? r.subresources[legacyWatch % r.subresources.length] : sub;
      const watchSeg = legacyWatch === 0 ? "/watch" : "";
      let p = `${r.prefix}${watchSeg}`;
      if (r.namespaced && legacyWatch !== 1) p += `/namespaces/${ns}`;
      p += `/${r.plural}`;
      if (name !== undefined) {
        p += `/${name}`;
        if (subName !== undefined) p += `/${subName}`;
      }
      return p;
    });
}

const adminPathArb = fc.constantFrom(
  "/tollgate/admin",
  "/tollgate/admin/",
  "/tollgate/admin/compact",
  "/tollgate/admin/clock",
  "/tollgate/admin/corrupt",
  "/tollgate/admin/nope",
);

/** Mutations of a whole path: doubled slashes, dot segments, a trailing slash, case, encoding. */
const pathMutationArb = fc.constantFrom<(p: string) => string>(
  (p) => p,
  (p) => p,
  (p) => p,
  (p) => p.replace("/", "//"),
  (p) => p.replace(/\/([^/]+)$/, "/./$1"),
  (p) => p.replace(/\/([^/]+)$/, "/x/../$1"),
  (p) => `${p}/`,
  (p) => p.toUpperCase(),
  (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
  (p) => p.replace(/\/[^/]*$/, ""),
  (p) => `${p}%`,
  // A raw "#" would be cut off by the client as a fragment, together with the query.
  (p) => `${p}%23frag`,
);

function pathArb(o: GeneratorOptions): fc.Arbitrary<string> {
  const choices: fc.WeightedArbitrary<string>[] = [
    { weight: 14, arbitrary: resourcePathArb() },
    { weight: 2, arbitrary: fc.constantFrom(...FIXED_PATHS) },
  ];
  if (o.admin) choices.push({ weight: 1, arbitrary: adminPathArb });
  return fc.tuple(fc.oneof(...choices), pathMutationArb).map(([p, m]) => m(p));
}

// ---------------------------------------------------------------- query

const bigRv = fc.constantFrom("18446744073709551615", "18446744073709551616", "99999999999999999999999", "-1", "1e3", "0x10", "abc", "", " 1", "1 ");
const rvArb = fc.oneof(fc.constantFrom("0", "1", "2"), fc.nat({ max: 500 }).map(String), fc.constant("9999999"), bigRv);

const selectorArb = fc.oneof(
  fc.constantFrom(
    "metadata.name=fuzz-a",
    "metadata.namespace!=default",
    "metadata.name==x,metadata.namespace=fuzz",
    "metadata.name=a\\,b",
    "metadata.name=a\\=b",
    "metadata.name=\\",
    "involvedObject.kind=Pod",
    "type=Normal",
    "spec.holderIdentity=x",
    "nope=1",
    "=",
    "a in (b)",
    "app=fuzz",
    "app in (a,b),tier notin (c)",
    "!app",
    "app",
    "a.b/c=d",
    `x=${"y".repeat(300)}`,
    "(",
    "app=a=b",
  ),
  fc.string({ maxLength: 30 }),
);

type Param = [string, string];

function watchTimeoutArb(o: GeneratorOptions): fc.Arbitrary<string | undefined> {
  const choices: fc.Arbitrary<string | undefined>[] = [fc.constantFrom("1", "2")];
  if (o.openWatches) choices.push(fc.constantFrom(undefined, "0", "-1", "5", "3600", "1.5", "x"));
  if (o.known.has("hugeWatchTimeout")) choices.push(fc.constantFrom("2147484", "9223372036854775807", "99999999999999999999"));
  return fc.oneof(...choices);
}

function paramArb(): fc.Arbitrary<Param> {
  return fc.oneof(
    fc.tuple(fc.constant("resourceVersion"), rvArb),
    fc.tuple(fc.constant("resourceVersionMatch"), fc.constantFrom("NotOlderThan", "Exact", "exact", "", "Nope")),
    fc.tuple(fc.constant("limit"), fc.constantFrom("1", "2", "0", "-1", "500", "9223372036854775808", "x", "")),
    fc.tuple(
      fc.constant("continue"),
      fc.constantFrom("x", "", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiLi4vIn0", "%%%"),
    ),
    fc.tuple(fc.constant("labelSelector"), selectorArb),
    fc.tuple(fc.constant("fieldSelector"), selectorArb),
    fc.tuple(fc.constant("dryRun"), fc.constantFrom("All", "all", "", "x")),
    fc.tuple(fc.constant("fieldManager"), fc.constantFrom("fuzzer", "", "x".repeat(129), "\u00e9", "kubectl")),
    fc.tuple(fc.constant("fieldValidation"), fc.constantFrom("Strict", "Warn", "Ignore", "strict", "")),
    fc.tuple(fc.constant("force"), fc.constantFrom("true", "false", "1", "x")),
    fc.tuple(fc.constant("propagationPolicy"), fc.constantFrom("Orphan", "Background", "Foreground", "x")),
    fc.tuple(fc.constant("gracePeriodSeconds"), fc.constantFrom("0", "-1", "30", "x")),
    fc.tuple(fc.constant("pretty"), fc.constantFrom("true", "false", "1", "x")),
    fc.tuple(fc.constant("allowWatchBookmarks"), fc.constantFrom("true", "false", "x")),
    fc.tuple(fc.constant("sendInitialEvents"), fc.constantFrom("true", "false", "x")),
    fc.tuple(fc.constant("includeObject"), fc.constantFrom("None", "Object", "Metadata", "x")),
    fc.tuple(fc.constant("timeout"), fc.constantFrom("1s", "10m", "x", "-1s")),
    fc.tuple(fc.constant("ignoreStoreReadErrorWithClusterBreakingPotential"), fc.constantFrom("true", "false")),
    fc.tuple(fc.stringMatching(/^[a-zA-Z]{1,12}$/), fc.string({ maxLength: 12 })),
  );
}

interface Query {
  params: Param[];
  watchSeconds?: number;
  openWatch?: boolean;
}

function queryArb(o: GeneratorOptions): fc.Arbitrary<Query> {
  const watchArb = fc.option(fc.tuple(fc.constantFrom("true", "1", "false", "0", "t", "x", ""), watchTimeoutArb(o)), { nil: undefined, freq: 4 });
  return fc.tuple(fc.array(paramArb(), { maxLength: 5 }), watchArb).map(([params, watch]) => {
    if (!watch) return { params };
    const [w, timeout] = watch;
    // The timeout goes first: a repeated parameter is read from its first value.
    const head: Param[] = timeout === undefined ? [] : [["timeoutSeconds", timeout]];
    const out: Query = { params: [...head, ["watch", w], ...params.filter(([k]) => k !== "timeoutSeconds")] };
    if (timeout === "1" || timeout === "2") out.watchSeconds = Number(timeout);
    else out.openWatch = true;
    return out;
  });
}

function encodeQuery(params: Param[]): string {
  if (params.length === 0) return "";
  return `?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")}`;
}

// ---------------------------------------------------------------- headers

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json;charset=UTF-16",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/cbor",
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "application/apply-patch+cbor",
  "text/plain",
  "application/x-www-form-urlencoded",
  "*/*",
  "application/",
  ";;;",
  'application/json; charset="',
];

const ACCEPTS = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/vnd.kubernetes.protobuf, application/json",
  "application/cbor",
  "application/cbor-seq",
  "application/json;stream=watch",
  "application/vnd.kubernetes.protobuf;stream=watch",
  "application/json;as=Table;g=meta.k8s.io;v=v1",
  "application/json;as=Table;g=meta.k8s.io;v=v1beta1, application/json",
  "application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/json",
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
  "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
  "application/json;as=Nope;g=x;v=v9",
  "text/html",
  "text/plain",
  "*/*",
  "application/*",
  "*/json",
  "application/json;q=0, application/yaml;q=0.5",
  ";;,,",
  "application/json;q=x",
];

const headerValueArb = fc.oneof(
  fc.constantFrom("", " ", "x", "x".repeat(8000), "é", "a\tb", "Bearer", "Bearer ", "Basic Zm9vOmJhcg=="),
  fc.stringMatching(/^[ -~]{0,40}$/),
);

interface HeadersAndCaller {
  headers: Record<string, string>;
  caller: Caller;
}

function headersArb(): fc.Arbitrary<HeadersAndCaller> {
  return fc
    .record({
      caller: fc.constantFrom<Caller>("admin", "admin", "serviceaccount", "serviceaccount", "anonymous", "garbage"),
      accept: fc.option(fc.constantFrom(...ACCEPTS), { nil: undefined, freq: 2 }),
      impersonate: fc.option(
        fc.record({
          user: fc.constantFrom("alice", "system:anonymous", "system:serviceaccount:fuzz:fuzzer", "system:admin", ""),
          group: fc.option(fc.constantFrom("system:masters", "system:authenticated", "x"), { nil: undefined }),
        }),
        { nil: undefined, freq: 10 },
      ),
      extra: fc.option(
        fc.tuple(
          fc.constantFrom(
            "x-odd",
            "user-agent",
            "content-encoding",
            "accept-encoding",
            "if-match",
            "impersonate-uid",
            "impersonate-group",
            "origin",
            "expect-ct",
          ),
          headerValueArb,
        ),
        { nil: undefined, freq: 4 },
      ),
    })
    .map(({ caller, accept, impersonate, extra }) => {
      const headers: Record<string, string> = {};
      if (accept !== undefined) headers["accept"] = accept;
      if (impersonate) {
        headers["impersonate-user"] = impersonate.user;
        if (impersonate.group) headers["impersonate-group"] = impersonate.group;
      }
      if (extra) headers[extra[0]] = extra[1];
      return { headers, caller };
    });
}

// ---------------------------------------------------------------- bodies

const meta = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, namespace: FUZZ_NAMESPACE, ...extra });
const NOW = "2026-01-01T00:00:00.000000Z";

/** Valid objects of several kinds; the seed requests create some of them. */
export const SAMPLE_OBJECTS: Record<string, unknown>[] = [
  { apiVersion: "v1", kind: "ConfigMap", metadata: meta("fuzz-a", { labels: { app: "fuzz" } }), data: { k: "v" } },
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "fuzz-b" } },
  {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: meta("fuzz-a"),
    eventTime: NOW,
    reportingController: "tollgate.dev/fuzz",
    reportingInstance: "fuzz-1",
    action: "Check",
    reason: "Fuzzing",
    type: "Normal",
    regarding: { apiVersion: "v1", kind: "ConfigMap", namespace: FUZZ_NAMESPACE, name: "fuzz-a" },
    note: "hello",
  },
  {
    apiVersion: "v1",
    kind: "Event",
    metadata: meta("fuzz-b"),
    involvedObject: { kind: "ConfigMap", namespace: FUZZ_NAMESPACE, name: "fuzz-a" },
    reason: "Fuzzing",
    message: "hi",
    type: "Warning",
    count: 2,
    firstTimestamp: "2026-01-01T00:00:00Z",
    lastTimestamp: "2026-01-01T00:00:01Z",
    source: { component: "fuzz" },
  },
  { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: meta("fuzz-a"), spec: { holderIdentity: "fuzz", leaseDurationSeconds: 15, renewTime: NOW } },
  { apiVersion: "v1", kind: "ServiceAccount", metadata: meta("fuzz-c") },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: meta("fuzz-a"),
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: meta("fuzz-a"),
    subjects: [{ kind: "ServiceAccount", name: "fuzzer", namespace: FUZZ_NAMESPACE }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "fuzz-a" },
  },
  { apiVersion: `${CRD_GROUP}/v1`, kind: "Widget", metadata: meta("fuzz-a"), spec: { size: 3, color: "red", tags: ["a"] } },
  { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background", gracePeriodSeconds: 0, preconditions: { resourceVersion: "1" } },
  { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["x"], expirationSeconds: 600 } },
  {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    spec: { resourceAttributes: { namespace: FUZZ_NAMESPACE, verb: "get", resource: "configmaps", fieldSelector: { rawSelector: "metadata.name=x" } } },
  },
  {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "fuzz-a" },
    webhooks: [],
  },
  {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `gadgets.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: "Namespaced",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
    },
  },
];

/** Patches of the four types. */
const PATCHES: unknown[] = [
  [{ op: "replace", path: "/data/k", value: "w" }],
  [{ op: "add", path: "/metadata/labels/x", value: "y" }],
  [{ op: "test", path: "/nope", value: 1 }],
  [{ op: "move", from: "/data", path: "/data/k" }],
  [{ op: "remove", path: "/metadata" }],
  { data: { k: null } },
  { metadata: { labels: { app: null } }, $patch: "replace" },
  { metadata: { finalizers: ["x/y"] } },
  { spec: { $retainKeys: ["size"] } },
];

const leafArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308, 2 ** 63, "2026-13-45T99:99:99Z", "", null, true, false, "\u0000", "\ud800"),
  fc.constant({}),
  fc.constant([]),
);

const valueArb: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafArb,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("name", "kind", "apiVersion", "metadata", "data", "spec", "items", "x", "$patch", "op"), tie("v"), { maxKeys: 3 }),
  ),
})).v;

/** One change to an object: the key chosen by index along a walk; set, delete, wrap or add a key. */
interface Mutation {
  walk: number[];
  op: "set" | "delete" | "wrapArray" | "addKey" | "proto" | "bigString";
  value: unknown;
  size: number;
}

function mutationArb(o: GeneratorOptions): fc.Arbitrary<Mutation> {
  const ops: Mutation["op"][] = ["set", "set", "delete", "wrapArray", "addKey", "bigString"];
  if (o.known.has("protoKeys")) ops.push("proto");
  return fc.record({
    walk: fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 4 }),
    op: fc.constantFrom(...ops),
    value: valueArb,
    size: fc.integer({ min: 1, max: o.maxStringBytes }),
  });
}

function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (v !== null && typeof v === "object") {
    // Null-prototype objects, so a "__proto__" key is an own key that JSON.stringify writes.
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, x] of Object.entries(v)) out[k] = clone(x);
    return out;
  }
  return v;
}

function applyMutation(root: unknown, mutation: Mutation): unknown {
  // A fresh copy: generated values may be shared instances (fc.constant), never to be changed or nested in themselves.
  const m = { ...mutation, value: clone(mutation.value) };
  let parent: Record<string, unknown> | unknown[] | undefined;
  let key: string | number | undefined;
  let node = root;
  for (const step of m.walk) {
    if (node === null || typeof node !== "object") break;
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node as Record<string, unknown>;
    key = keys[step % keys.length] as string | number;
    node = (parent as Record<string | number, unknown>)[key];
  }
  const holder = (parent ?? undefined) as Record<string | number, unknown> | undefined;
  switch (m.op) {
    case "set":
      if (!holder || key === undefined) return m.value;
      holder[key] = m.value;
      return root;
    case "delete":
      if (holder && key !== undefined) {
        if (Array.isArray(holder)) holder.splice(Number(key), 1);
        else delete holder[key];
      }
      return root;
    case "wrapArray":
      if (!holder || key === undefined) return [root];
      holder[key] = [node];
      return root;
    case "bigString":
      if (!holder || key === undefined) return root;
      holder[key] = "x".repeat(m.size);
      return root;
    case "addKey":
    case "proto": {
      const target =
        node !== null && typeof node === "object" && !Array.isArray(node) ? (node as Record<string, unknown>) : (holder ?? (root as Record<string, unknown>));
      if (target && typeof target === "object" && !Array.isArray(target)) {
        const k = m.op === "proto" ? "__proto__" : `x${m.size % 7}`;
        Object.defineProperty(target, k, {
          value: m.op === "proto" ? { polluted: m.value, kind: "Status" } : m.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return root;
    }
  }
}

function objectArb(o: GeneratorOptions): fc.Arbitrary<unknown> {
  return fc
    .tuple(fc.constantFrom(...SAMPLE_OBJECTS, ...PATCHES), fc.array(mutationArb(o), { maxLength: 3 }), segmentArb(NAMES))
    .map(([base, mutations, name]) => {
      let obj = clone(base);
      const md = (obj as { metadata?: unknown }).metadata;
      if (md && typeof md === "object" && !Array.isArray(md)) (md as Record<string, unknown>)["name"] = name;
      for (const m of mutations) obj = applyMutation(obj, m);
      return obj;
    });
}

const enc = new TextEncoder();

function deepJson(depth: number, kind: "array" | "object" | "inMetadata"): string {
  if (kind === "array") return `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const inner = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  if (kind === "object") return inner;
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fuzz-deep","annotations":${inner}}}`;
}

function deepYaml(depth: number): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz-deep\ndata: ${"[".repeat(depth)}${"]".repeat(depth)}\n`;
}

const SMALL_ALIASES =
  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz-alias\n  labels: &l {app: fuzz}\n  annotations: *l\ndata: &d {a: b}\nx: [*d, *d, *d]\n";

function aliasBomb(levels: number): string {
  let out = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-bomb}\na0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i <= levels; i++) out += `a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(",")}]\n`;
  return out;
}

function protobufBody(obj: unknown): Uint8Array {
  try {
    return encodeObject(obj as Record<string, unknown>);
  } catch {
    return Uint8Array.of(0x6b, 0x38, 0x73, 0x00, 0x0a, 0x02, 0x76, 0x31);
  }
}

function cborBody(obj: unknown): Uint8Array {
  try {
    return encodeCbor(obj);
  } catch {
    return Uint8Array.of(0xd9, 0xd9, 0xf7, 0xa1);
  }
}

interface Body {
  bytes: Uint8Array;
  /** The content type that fits the bytes (the request may still send another). */
  contentType: string;
}

function bodyArb(o: GeneratorOptions): fc.Arbitrary<Body> {
  const json = (s: string): Body => ({ bytes: enc.encode(s), contentType: "application/json" });
  const depth = o.known.has("deepNesting") ? o.maxDepth : Math.min(o.maxDepth, 300);
  const kinds: fc.Arbitrary<Body>[] = [
    objectArb(o).map((x) => json(JSON.stringify(x) ?? "null")),
    objectArb(o).map((x) => json(JSON.stringify(x) ?? "null")),
    objectArb(o).map((x) => ({ bytes: enc.encode(dump(x, { skipInvalid: true })), contentType: "application/yaml" })),
    objectArb(o).map((x) => ({ bytes: protobufBody(x), contentType: "application/vnd.kubernetes.protobuf" })),
    objectArb(o).map((x) => ({ bytes: cborBody(x), contentType: "application/cbor" })),
    // Truncated JSON.
    fc.tuple(objectArb(o), fc.nat()).map(([x, n]) => {
      const s = JSON.stringify(x) ?? "";
      return json(s.slice(0, n % Math.max(1, s.length)));
    }),
    // Invalid UTF-8 inside an otherwise valid object.
    fc.tuple(objectArb(o), fc.nat(), fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82])).map(([x, n, bad]) => {
      const b = enc.encode(JSON.stringify(x) ?? "");
      const at = n % Math.max(1, b.length);
      return { bytes: Uint8Array.from([...b.slice(0, at), ...bad, ...b.slice(at)]), contentType: "application/json" };
    }),
    fc
      .tuple(fc.integer({ min: 1, max: depth }), fc.constantFrom<"array" | "object" | "inMetadata">("array", "object", "inMetadata"))
      .map(([d, k]) => json(deepJson(d, k))),
    fc.integer({ min: 1, max: depth }).map((d) => ({ bytes: enc.encode(deepYaml(d)), contentType: "application/yaml" })),
    fc.constant({ bytes: enc.encode(SMALL_ALIASES), contentType: "application/yaml" }),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ bytes, contentType: "application/octet-stream" })),
    fc.constantFrom("", "null", "[]", "{}", "1", '"x"', "{,}", '{"a":1,"a":2}', "\ufeff{}", "---\n---\n", "{{{", "NaN", '{"kind":"Status"}').map(json),
  ];
  if (o.known.has("yamlAliasBomb"))
    kinds.push(fc.integer({ min: 3, max: 9 }).map((n) => ({ bytes: enc.encode(aliasBomb(n)), contentType: "application/yaml" })));
  if (o.oversized)
    kinds.push(
      fc
        .integer({ min: 3 * 1024 * 1024 - 64, max: 3 * 1024 * 1024 + 64 })
        .map((n) => json(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"${"x".repeat(n)}"}}`)),
    );
  return fc.oneof(...kinds);
}

function adminBodyArb(): fc.Arbitrary<Body> {
  const json = (x: unknown): Body => ({ bytes: enc.encode(JSON.stringify(x)), contentType: "application/json" });
  return fc.oneof(
    fc.constantFrom({}, { revision: "1" }, { revision: "x" }, { revision: "99999999" }, { revision: 5 }).map(json),
    fc.oneof(fc.integer({ min: -10, max: 100 }), fc.constantFrom(1e12, -1e12, "x", null, 1.5, 1e308)).map((n) => json({ advanceSeconds: n })),
    // Corruption only of objects that do not exist: a real corrupt object answers 500 to reads, on purpose.
    fc.constantFrom("/api/v1/namespaces/fuzz-none/configmaps/x", "/api/v1/namespaces/fuzz", "x", "", "/apis/nope/v1/x").map((p) => json({ path: p })),
    valueArb.map(json),
  );
}

// ---------------------------------------------------------------- requests

/** Methods Node's HTTP parser refuses in the request line: the answer is Go's raw 400, before any body is read. */
const UNPARSABLE_METHODS = ["FOO", "get", "BREW", "M-SEARCH-X"];

/**
 * Above this, a body sent with a request line the server cannot parse is left out: the server
 * answers 400 and closes without reading it, as Go's net/http does (conn.serve: closeWriteAndWait,
 * 500 ms), so a client still writing megabytes gets a reset from a real server too.
 */
const UNREAD_BODY_LIMIT = 64 * 1024;

function methodArb(o: GeneratorOptions): fc.Arbitrary<string> {
  const choices: fc.WeightedArbitrary<string>[] = [
    { weight: 10, arbitrary: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "POST", "PUT", "PATCH", "PATCH", "DELETE", "OPTIONS") },
    { weight: 1, arbitrary: fc.constantFrom("TRACE", "PROPFIND", "PURGE", "REPORT", "MKCOL", "LOCK", "SEARCH") },
  ];
  if (o.known.has("unknownMethods")) choices.push({ weight: 1, arbitrary: fc.constantFrom(...UNPARSABLE_METHODS) });
  return fc.oneof(...choices);
}

export function requestArb(o: GeneratorOptions = TEST_OPTIONS): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: methodArb(o),
      path: pathArb(o),
      query: queryArb(o),
      hc: headersArb(),
      body: fc.option(bodyArb(o), { nil: undefined, freq: 5 }),
      adminBody: adminBodyArb(),
      contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 2 }),
    })
    .map(({ method, path, query, hc, body, adminBody, contentType }) => {
      const isAdmin = path.startsWith("/tollgate/admin");
      const reads = method === "GET" || method === "HEAD";
      let chosen = isAdmin ? adminBody : reads && body !== undefined && method === "HEAD" ? undefined : body;
      if (chosen && chosen.bytes.length > UNREAD_BODY_LIMIT && UNPARSABLE_METHODS.includes(method)) chosen = undefined;
      const headers = { ...hc.headers };
      if (chosen) headers["content-type"] = contentType ?? chosen.contentType;
      const out: FuzzRequest = { method, path: path + encodeQuery(query.params), headers, caller: hc.caller };
      if (chosen) out.body = chosen.bytes;
      if (query.watchSeconds !== undefined) out.watchSeconds = query.watchSeconds;
      if (query.openWatch) out.openWatch = true;
      // A watch can also come from a /watch/ path; give it a short timeout too.
      if (/\/watch(\/|$)/.test(path) && out.watchSeconds === undefined && !out.openWatch) {
        out.path += `${out.path.includes("?") ? "&" : "?"}timeoutSeconds=1`;
        out.watchSeconds = 1;
        if (!query.params.some(([k]) => k === "timeoutSeconds")) return out;
        // An earlier timeoutSeconds wins: the short one added here may not count.
        delete out.watchSeconds;
        out.openWatch = true;
      }
      return out;
    });
}

/**
 * Requests that set up what the paths name: the namespace, the CRD and an object of each kind.
 * Sent once as the admin before fuzzing; errors (already exists) do not matter.
 */
export function seedRequests(): FuzzRequest[] {
  const post = (path: string, obj: unknown): FuzzRequest => ({
    method: "POST",
    path,
    headers: { "content-type": "application/json" },
    body: enc.encode(JSON.stringify(obj)),
    caller: "admin",
  });
  const ns = `/api/v1/namespaces/${FUZZ_NAMESPACE}`;
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `widgets.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget" },
      versions: ["v1", "v1beta1"].map((v, i) => ({
        name: v,
        served: true,
        storage: i === 0,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer", maximum: 10 },
                  color: { type: "string", enum: ["red", "blue"] },
                  tags: { type: "array", items: { type: "string" } },
                },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      })),
    },
  };
  const byKind = (kind: string, apiVersion: string) => SAMPLE_OBJECTS.find((x) => x["kind"] === kind && x["apiVersion"] === apiVersion);
  return [
    post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: FUZZ_NAMESPACE } }),
    post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd),
    post(`${ns}/configmaps`, byKind("ConfigMap", "v1")),
    post(`${ns}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "fuzzer" } }),
    post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${FUZZ_NAMESPACE}/roles`, {
      metadata: { name: "fuzzer" },
      rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }],
    }),
    post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${FUZZ_NAMESPACE}/rolebindings`, {
      metadata: { name: "fuzzer" },
      subjects: [{ kind: "ServiceAccount", name: "fuzzer", namespace: FUZZ_NAMESPACE }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "fuzzer" },
    }),
    post(`/apis/events.k8s.io/v1/namespaces/${FUZZ_NAMESPACE}/events`, byKind("Event", "events.k8s.io/v1")),
    post(`/apis/coordination.k8s.io/v1/namespaces/${FUZZ_NAMESPACE}/leases`, byKind("Lease", "coordination.k8s.io/v1")),
  ];
}

/** The TokenRequest that gives the ServiceAccount caller its token (auth on). */
export function tokenRequest(): FuzzRequest {
  return {
    method: "POST",
    path: `/api/v1/namespaces/${FUZZ_NAMESPACE}/serviceaccounts/fuzzer/token`,
    headers: { "content-type": "application/json" },
    body: enc.encode(JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} })),
    caller: "admin",
  };
}
