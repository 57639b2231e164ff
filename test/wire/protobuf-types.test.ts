/**
 * The protobuf forms of ServiceAccount, the authentication and authorization review types,
 * TokenRequest, RBAC and the admission webhook configurations: every kind round-trips its
 * served JSON form unchanged, and small objects encode to bytes worked out by hand from the
 * field numbers of api@v0.35.7 generated.proto (no golden files exist for these kinds).
 */
import { describe, expect, it } from "vitest";
import { decodeEnvelope, decodeObject, encodeObject, supportsProtobuf } from "../../lib/wire/protobuf/index.js";

type Obj = Record<string, unknown>;

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
/** The message inside the envelope (runtime.Unknown.raw). */
const body = (o: Obj): string => hex(decodeEnvelope(encodeObject(o)).raw);
/** Hex with spaces and comments allowed, for readable expectations. */
const h = (s: string): string => s.replace(/#[^\n]*/g, "").replace(/\s+/g, "");
const ascii = (s: string): string => Buffer.from(s, "utf8").toString("hex");

/** ObjectMeta with only non-pointer fields, all empty: 1..6 as `tag 00`, 7 generation 0, 8 zero Time. */
const EMPTY_META = "0a10 0a00 1200 1a00 2200 2a00 3200 3800 4200";
const META_NAMED_A = "0a11 0a0161 1200 1a00 2200 2a00 3200 3800 4200";

const RBAC = "rbac.authorization.k8s.io/v1";
const ADM = "admissionregistration.k8s.io/v1";
const AUTHN = "authentication.k8s.io/v1";
const AUTHZ = "authorization.k8s.io/v1";

const meta = { name: "x", namespace: "ns", uid: "u-1", resourceVersion: "7", creationTimestamp: "2024-05-06T07:08:09Z", labels: { a: "1", b: "2" } };
const selector = {
  matchLabels: { app: "web" },
  matchExpressions: [
    { key: "tier", operator: "In", values: ["a", "b"] },
    { key: "x", operator: "Exists" },
  ],
};

/** Each kind in the JSON form a server serves (defaults in, zero fields as Go writes them). */
const SAMPLES: Obj[] = [
  {
    kind: "ServiceAccount",
    apiVersion: "v1",
    metadata: meta,
    secrets: [{ kind: "Secret", name: "s", fieldPath: "f" }],
    imagePullSecrets: [{ name: "pull" }, {}],
    automountServiceAccountToken: false,
  },
  { kind: "ServiceAccountList", apiVersion: "v1", metadata: { resourceVersion: "9" }, items: [{ metadata: { name: "a" } }] },
  {
    kind: "TokenRequest",
    apiVersion: AUTHN,
    metadata: { name: "robot", namespace: "ns", creationTimestamp: "2024-05-06T07:08:09Z" },
    spec: { audiences: ["api", "vault"], expirationSeconds: 3600, boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p", uid: "u" } },
    status: { token: "t.o.k", expirationTimestamp: "2024-05-06T08:08:09Z" },
  },
  // No omitempty on TokenRequestSpec: nil fields are null; a zero expiration time too.
  {
    kind: "TokenRequest",
    apiVersion: AUTHN,
    metadata: {},
    spec: { audiences: null, expirationSeconds: null, boundObjectRef: null },
    status: { token: "", expirationTimestamp: null },
  },
  {
    kind: "TokenReview",
    apiVersion: AUTHN,
    metadata: {},
    spec: { token: "abc", audiences: ["api"] },
    status: {
      authenticated: true,
      user: {
        username: "system:serviceaccount:ns:robot",
        uid: "u",
        groups: ["g1", "g2"],
        extra: { "authentication.kubernetes.io/pod-name": ["p"], z: ["1", "2"] },
      },
      audiences: ["api"],
    },
  },
  { kind: "TokenReview", apiVersion: AUTHN, metadata: {}, spec: {}, status: { user: {}, error: "invalid bearer token" } },
  {
    kind: "SelfSubjectReview",
    apiVersion: AUTHN,
    metadata: { creationTimestamp: "2024-05-06T07:08:09Z" },
    status: { userInfo: { username: "admin", groups: ["system:masters", "system:authenticated"] } },
  },
  {
    kind: "SubjectAccessReview",
    apiVersion: AUTHZ,
    metadata: {},
    spec: {
      resourceAttributes: {
        namespace: "ns",
        verb: "list",
        group: "apps",
        version: "v1",
        resource: "deployments",
        subresource: "scale",
        name: "d",
        fieldSelector: { rawSelector: "a=b", requirements: [{ key: "a", operator: "In", values: ["b"] }] },
        labelSelector: { requirements: [{ key: "l", operator: "Exists" }] },
      },
      user: "u",
      groups: ["g"],
      extra: { scope: ["x"] },
      uid: "1",
    },
    status: { allowed: false, denied: true, reason: "no", evaluationError: "e" },
  },
  {
    kind: "SelfSubjectAccessReview",
    apiVersion: AUTHZ,
    metadata: {},
    spec: { nonResourceAttributes: { path: "/healthz", verb: "get" } },
    status: { allowed: true },
  },
  {
    kind: "LocalSubjectAccessReview",
    apiVersion: AUTHZ,
    metadata: { namespace: "ns" },
    spec: { resourceAttributes: { namespace: "ns", verb: "get", resource: "pods" } },
    status: { allowed: false },
  },
  {
    kind: "SelfSubjectRulesReview",
    apiVersion: AUTHZ,
    metadata: {},
    spec: { namespace: "ns" },
    status: {
      resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["p"] }, { verbs: null }],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/api", "/api/*"] }],
      incomplete: true,
      evaluationError: "partial",
    },
  },
  // resourceRules and nonResourceRules have no omitempty: nil is null.
  { kind: "SelfSubjectRulesReview", apiVersion: AUTHZ, metadata: {}, spec: {}, status: { resourceRules: null, nonResourceRules: null, incomplete: false } },
  {
    kind: "Role",
    apiVersion: RBAC,
    metadata: meta,
    rules: [{ verbs: ["get", "list"], apiGroups: ["", "apps"], resources: ["pods", "deployments/scale"], resourceNames: ["a"] }],
  },
  { kind: "Role", apiVersion: RBAC, metadata: { name: "empty" }, rules: null },
  {
    kind: "ClusterRole",
    apiVersion: RBAC,
    metadata: { name: "c" },
    rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/metrics"] }],
    aggregationRule: { clusterRoleSelectors: [selector, {}] },
  },
  {
    kind: "RoleBinding",
    apiVersion: RBAC,
    metadata: { name: "b", namespace: "ns" },
    subjects: [
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" },
      { kind: "ServiceAccount", name: "robot", namespace: "ns" },
    ],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
  },
  { kind: "ClusterRoleBinding", apiVersion: RBAC, metadata: { name: "cb" }, roleRef: { apiGroup: "", kind: "", name: "" } },
  ...["Role", "ClusterRole"].map((k) => ({
    kind: `${k}List`,
    apiVersion: RBAC,
    metadata: { resourceVersion: "3", continue: "c" },
    items: [{ metadata: { name: "i" }, rules: [{ verbs: ["*"] }] }],
  })),
  ...["RoleBinding", "ClusterRoleBinding"].map((k) => ({
    kind: `${k}List`,
    apiVersion: RBAC,
    metadata: {},
    items: [{ metadata: { name: "i" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" } }],
  })),
  {
    kind: "ValidatingWebhookConfiguration",
    apiVersion: ADM,
    metadata: { name: "v" },
    webhooks: [
      {
        name: "v.example.com",
        clientConfig: { service: { namespace: "ns", name: "svc", path: "/validate", port: 8443 }, caBundle: "LS0tLS1CRUdJTg==" },
        rules: [
          { operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], scope: "Namespaced" },
          { operations: ["*"] },
        ],
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        namespaceSelector: selector,
        objectSelector: {},
        sideEffects: "None",
        timeoutSeconds: 10,
        admissionReviewVersions: ["v1", "v1beta1"],
        matchConditions: [{ name: "c", expression: "true" }],
      },
    ],
  },
  // sideEffects (a pointer) and admissionReviewVersions have no omitempty: null when unset.
  {
    kind: "ValidatingWebhookConfiguration",
    apiVersion: ADM,
    metadata: {},
    webhooks: [{ name: "bare", clientConfig: {}, sideEffects: null, admissionReviewVersions: null }],
  },
  {
    kind: "MutatingWebhookConfiguration",
    apiVersion: ADM,
    metadata: { name: "m" },
    webhooks: [
      {
        name: "m.example.com",
        clientConfig: { url: "https://hook.example.com/m" },
        rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
        failurePolicy: "Ignore",
        matchPolicy: "Exact",
        objectSelector: selector,
        sideEffects: "NoneOnDryRun",
        timeoutSeconds: 5,
        admissionReviewVersions: ["v1"],
        reinvocationPolicy: "IfNeeded",
      },
    ],
  },
  {
    kind: "Service",
    apiVersion: "v1",
    metadata: { name: "kubernetes", namespace: "default" },
    spec: {
      ports: [
        { name: "https", protocol: "TCP", port: 443, targetPort: 6443 },
        { name: "web", protocol: "TCP", appProtocol: "http", port: 80, targetPort: "http", nodePort: 30080 },
      ],
      selector: { app: "web" },
      clusterIP: "10.0.0.1",
      clusterIPs: ["10.0.0.1"],
      type: "ClusterIP",
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    },
    status: {
      loadBalancer: { ingress: [{ ip: "1.2.3.4", ipMode: "VIP", ports: [{ port: 80, protocol: "TCP", error: "e" }] }] },
      conditions: [{ type: "Ready", status: "True", observedGeneration: 2, lastTransitionTime: "2024-05-06T07:08:09Z", reason: "R", message: "" }],
    },
  },
  {
    kind: "ServiceList",
    apiVersion: "v1",
    metadata: {},
    items: [{ metadata: { name: "s" }, spec: { ports: [{ port: 1, targetPort: 0 }] }, status: { loadBalancer: {} } }],
  },
  {
    kind: "EndpointSlice",
    apiVersion: "discovery.k8s.io/v1",
    metadata: { name: "kubernetes", namespace: "default", labels: { "kubernetes.io/service-name": "kubernetes" } },
    addressType: "IPv4",
    endpoints: [
      {
        addresses: ["10.0.0.5"],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: "h",
        targetRef: { kind: "Pod", namespace: "default", name: "p", uid: "u" },
        nodeName: "n",
        zone: "z",
        hints: { forZones: [{ name: "z" }], forNodes: [{ name: "n" }] },
      },
      { addresses: null, conditions: {} },
    ],
    ports: [{ name: "https", protocol: "TCP", port: 6443, appProtocol: "https" }, {}],
  },
  // endpoints and ports have no omitempty: nil is null.
  { kind: "EndpointSlice", apiVersion: "discovery.k8s.io/v1", metadata: {}, addressType: "FQDN", endpoints: null, ports: null },
  { kind: "EndpointSliceList", apiVersion: "discovery.k8s.io/v1", metadata: {}, items: [] },
  ...["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"].map((k) => ({
    kind: `${k}List`,
    apiVersion: ADM,
    metadata: { resourceVersion: "1" },
    items: [{ metadata: { name: "i" } }],
  })),
];

describe("protobuf forms of the auth, RBAC, webhook configuration, Service and EndpointSlice kinds", () => {
  it("has a protobuf form for every kind (and still none for custom resources)", () => {
    for (const s of SAMPLES) expect(supportsProtobuf(s["apiVersion"] as string, s["kind"] as string), String(s["kind"])).toBe(true);
    // CustomResourceDefinition has one too (test/wire/protobuf-crd.test.ts); custom resources never.
    expect(supportsProtobuf("apiextensions.k8s.io/v1", "CustomResourceDefinition")).toBe(true);
    expect(supportsProtobuf("example.com/v1", "Widget")).toBe(false);
  });

  for (const s of SAMPLES) {
    it(`${s["kind"]} round-trips JSON -> protobuf -> JSON unchanged (${hex(encodeObject(s)).length / 2} bytes)`, () => {
      const bytes = encodeObject(s);
      expect(decodeObject(bytes)).toEqual(s);
      // Key order too: the decoded object serializes to the same JSON text.
      expect(JSON.stringify(decodeObject(bytes))).toBe(JSON.stringify(s));
    });
  }

  it("a Role inside a watch event is embedded as a full protobuf body", () => {
    const role = SAMPLES.find((s) => s["kind"] === "Role") as Obj;
    const event = { type: "ADDED", object: role };
    expect(decodeObject(encodeObject(event))).toEqual(event);
  });
});

describe("hand-checked bytes", () => {
  it("ClusterRoleBinding: the whole envelope", () => {
    const crb = { kind: "ClusterRoleBinding", apiVersion: RBAC, metadata: { name: "a" }, roleRef: { apiGroup: "g", kind: "ClusterRole", name: "r" } };
    const expected = h(`
      6b387300                               # magic "k8s\\0"
      0a32                                   # Unknown.typeMeta (50 bytes)
        0a1c ${ascii(RBAC)}                  #   apiVersion (28)
        1212 ${ascii("ClusterRoleBinding")}  #   kind (18)
      1228                                   # Unknown.raw (40 bytes)
        ${META_NAMED_A}                      #   1 metadata: name "a", the other non-pointer fields empty
                                             #   2 subjects: none, nothing written
        1a13                                 #   3 roleRef (19)
          0a0167                             #     1 apiGroup "g"
          120b ${ascii("ClusterRole")}       #     2 kind
          1a0172                             #     3 name "r"
      1a00 2200                              # contentEncoding, contentType: empty
    `);
    expect(hex(encodeObject(crb))).toBe(expected);
  });

  it("SubjectAccessReview: extra is map<string, ExtraValue{repeated string items = 1}>", () => {
    const sar = { kind: "SubjectAccessReview", apiVersion: AUTHZ, metadata: {}, spec: { extra: { k: ["v"] } }, status: { allowed: false } };
    const expected = h(`
      ${EMPTY_META}
      120e                 # 2 spec (14): resourceAttributes/nonResourceAttributes are pointers, left out
        1a00               #   3 user ""
        2a08               #   5 extra entry (8)
          0a016b           #     key "k"
          1203 0a0176      #     value ExtraValue{items "v"}
        3200               #   6 uid ""
      1a08                 # 3 status (8), in field-number order
        0800               #   1 allowed false
        1200               #   2 reason ""
        1a00               #   3 evaluationError ""
        2000               #   4 denied false
    `);
    expect(body(sar)).toBe(expected);
    // An empty ExtraValue is still written (12 00) and reads back as Go's nil slice: null.
    const empty = { ...sar, spec: { extra: { k: [] } } };
    expect(body(empty)).toContain(h("2a05 0a016b 1200"));
    expect((decodeObject(encodeObject(empty))["spec"] as Obj)["extra"]).toEqual({ k: null });
  });

  it("TokenRequest: spec fields by number (audiences 1, boundObjectRef 3, expirationSeconds 4)", () => {
    const tr = {
      kind: "TokenRequest",
      apiVersion: AUTHN,
      metadata: {},
      spec: { audiences: ["a"], expirationSeconds: 3600, boundObjectRef: { kind: "Secret", name: "s" } },
      status: { token: "", expirationTimestamp: null },
    };
    const expected = h(`
      ${EMPTY_META}
      1217                           # 2 spec (23)
        0a0161                       #   1 audiences "a"
        1a0f                         #   3 boundObjectRef (15): every field non-pointer
          0a06 ${ascii("Secret")}    #     1 kind
          1200                       #     2 apiVersion ""
          1a0173                     #     3 name "s"
          2200                       #     4 uid ""
        20901c                       #   4 expirationSeconds 3600 (varint 90 1c)
      1a04 0a00 1200                 # 3 status: token "", a zero Time is an empty message
    `);
    expect(body(tr)).toBe(expected);
    // Unset pointers are not written at all: an empty spec is an empty message.
    expect(body({ ...tr, spec: { audiences: null, expirationSeconds: null, boundObjectRef: null } })).toBe(h(`${EMPTY_META} 1200 1a04 0a00 1200`));
  });

  it("ValidatingWebhookConfiguration: caBundle is bytes, the inline Rule is field 2 of RuleWithOperations", () => {
    const vwc = {
      kind: "ValidatingWebhookConfiguration",
      apiVersion: ADM,
      metadata: {},
      webhooks: [
        {
          name: "w",
          clientConfig: { caBundle: "AAE=" },
          rules: [{ operations: ["CREATE"], resources: ["pods"] }],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    };
    const expected = h(`
      ${EMPTY_META}
      1225                              # 2 webhooks[0] (37)
        0a0177                          #   1 name "w"
        1204 1202 0001                  #   2 clientConfig: 2 caBundle = bytes 00 01 (url 3, service 1: unset pointers)
        1a10                            #   3 rules[0] (16)
          0a06 ${ascii("CREATE")}       #     1 operations
          1206 1a04 ${ascii("pods")}    #     2 rule: 3 resources (scope is a pointer)
        3204 ${ascii("None")}           #   6 sideEffects
        4202 ${ascii("v1")}             #   8 admissionReviewVersions
    `);
    expect(body(vwc)).toBe(expected);
    expect(decodeObject(encodeObject(vwc))).toEqual(vwc);
  });

  it("RoleBinding: Subject and RoleRef strings are non-pointers, always written", () => {
    const rb = { kind: "RoleBinding", apiVersion: RBAC, metadata: {}, subjects: [{ kind: "User", name: "u" }], roleRef: { apiGroup: "", kind: "", name: "" } };
    expect(body(rb)).toBe(
      h(`
      ${EMPTY_META}
      120d                         # 2 subjects[0] (13)
        0a04 ${ascii("User")}      #   1 kind
        1200                       #   2 apiGroup ""
        1a0175                     #   3 name "u"
        2200                       #   4 namespace ""
      1a06 0a00 1200 1a00          # 3 roleRef, all three strings empty
    `),
    );
  });

  it("Service: targetPort is an IntOrString {1 type, 2 intVal, 3 strVal}, all three always written", () => {
    const svc = {
      kind: "Service",
      apiVersion: "v1",
      metadata: {},
      spec: { ports: [{ name: "http", port: 80, targetPort: "web" }] },
      status: { loadBalancer: {} },
    };
    const expected = h(`
      ${EMPTY_META}
      1229                              # 2 spec (41)
        0a17                            #   1 ports[0] (23)
          0a04 ${ascii("http")}         #     1 name
          1200                          #     2 protocol ""
          1850                          #     3 port 80
          2209 0801 1000 1a03 ${ascii("web")} # 4 targetPort: type 1 (string), intVal 0, strVal "web"
          2800                          #     5 nodePort 0 (6 appProtocol is a pointer)
        1a00 2200                       #   3 clusterIP, 4 type
        3a00 4200 5200 5a00             #   7 sessionAffinity, 8 loadBalancerIP, 10 externalName, 11 externalTrafficPolicy
        6000 6800                       #   12 healthCheckNodePort, 13 publishNotReadyAddresses
      1a02 0a00                         # 3 status: 1 loadBalancer, empty
    `);
    expect(body(svc)).toBe(expected);
    // An int target: type 0, intVal 8080 (varint 90 3f), strVal "".
    const intTarget = { ...svc, spec: { ports: [{ port: 80, targetPort: 8080 }] } };
    expect(body(intTarget)).toContain(h("2207 0800 10903f 1a00"));
    expect(decodeObject(encodeObject(intTarget))).toEqual(intTarget);
  });

  it("EndpointSlice: addressType is field 4 but written last; conditions are pointers", () => {
    const es = {
      kind: "EndpointSlice",
      apiVersion: "discovery.k8s.io/v1",
      metadata: {},
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true } }],
      ports: [{ port: 80 }],
    };
    const expected = h(`
      ${EMPTY_META}
      120e                              # 2 endpoints[0] (14)
        0a08 ${ascii("10.0.0.1")}       #   1 addresses
        1202 0801                       #   2 conditions: 1 ready true (serving, terminating unset)
      1a02 1850                         # 3 ports[0]: 3 port 80 (name, protocol, appProtocol unset)
      2204 ${ascii("IPv4")}             # 4 addressType
    `);
    expect(body(es)).toBe(expected);
  });
});
