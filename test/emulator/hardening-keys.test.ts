/**
 * Keys are data (issue #15 item 6): a real server stores `__proto__`, `constructor`,
 * `toString`… as ordinary keys of a ConfigMap's data (any `[-._a-zA-Z0-9]+` key) and of a
 * custom resource's free-form fields, and as labels or annotations when they are qualified
 * names (`constructor` is; `__proto__` is not: 422). Before, a `__proto__` key was dropped
 * on create, a merge patch dropped it and every key after it, and a JSON patch adding
 * `/data/__proto__` was refused with 422.
 *
 * Objects with such keys are built with Object.fromEntries here: in a literal or by
 * assignment `__proto__` would set the prototype instead of a member.
 */
import fc from "fast-check";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PKI, PROXY_ALLOWED_NAME, readPair } from "../../fixtures/daemons/pki.js";
import { startEmulatedDaemons } from "../../lib/emulator/daemons/index.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { CborSeqReader, decodeCbor, encodeCbor } from "../../lib/wire/cbor.js";
import { decodeObject, encodeObject, WatchFrameReader } from "../../lib/wire/protobuf/index.js";
import { fromYaml, toYaml } from "../../lib/wire/yaml.js";
import { get as daemonGet, TLS } from "./daemons/support.js";
import { type ChunkDecoder, client, openDecodedWatch, uniq, type WatchReader } from "./support.js";
import { allow, jsonPatch, startWebhookServer } from "./webhook-server.js";

type Dict = Record<string, string>;
type Encoding = "json" | "yaml" | "protobuf" | "cbor";

const PB = "application/vnd.kubernetes.protobuf";
const MEDIA: Record<Encoding, string> = { json: "application/json", yaml: "application/yaml", protobuf: PB, cbor: "application/cbor" };
const JSON_PATCH = "application/json-patch+json";
const MERGE = "application/merge-patch+json";
const SMP = "application/strategic-merge-patch+json";

/** Names Object.prototype has, which plain-object code reads or writes by mistake. */
const INHERITED = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "__lookupSetter__", "isPrototypeOf"];
/** The ones that are also valid label and annotation keys (a qualified name starts and ends alphanumeric). */
const INHERITED_LABELS = INHERITED.filter((k) => /^[A-Za-z0-9]/.test(k));

const dict = (entries: Iterable<readonly [string, string]>): Dict => Object.fromEntries(entries);
/** Entries sorted by key: compares own members only, `__proto__` included. */
const entriesOf = (d: unknown): [string, unknown][] => Object.entries((d ?? {}) as object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
const cm = (name = ""): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ""}`;

interface Answer {
  status: number;
  json: any;
  text: string;
}

/** A request whose body and answer are in the given encodings (JSON when the answer is a Status text). */
async function send(method: string, path: string, body: unknown, bodyType: string, accept: Encoding = "json"): Promise<Answer> {
  let payload: string | Uint8Array | undefined;
  if (body !== undefined) {
    if (bodyType === PB) payload = encodeObject(body as Record<string, unknown>);
    else if (bodyType === "application/cbor" || bodyType === "application/apply-patch+cbor") payload = encodeCbor(body);
    else if (bodyType === "application/yaml" || bodyType === "application/apply-patch+yaml") payload = typeof body === "string" ? body : toYaml(body);
    else payload = typeof body === "string" ? body : JSON.stringify(body);
  }
  const headers: Record<string, string> = { accept: MEDIA[accept] };
  if (payload !== undefined) headers["content-type"] = bodyType;
  const res = await request(emu.url + path, { method: method as "GET", body: payload, headers });
  const bytes = new Uint8Array(await res.body.arrayBuffer());
  const text = Buffer.from(bytes).toString("utf8");
  const type = String(res.headers["content-type"] ?? "");
  let json: unknown;
  if (type.startsWith(PB)) json = decodeObject(bytes);
  else if (type.startsWith("application/cbor")) json = decodeCbor(bytes);
  else if (type.startsWith("application/yaml")) json = fromYaml(text);
  else json = JSON.parse(text);
  return { status: res.statusCode, json, text };
}

const WATCH_DECODERS: Record<"json" | "protobuf" | "cbor", () => ChunkDecoder | undefined> = {
  json: () => undefined,
  protobuf: () => new WatchFrameReader(),
  cbor: () => new CborSeqReader(),
};

beforeAll(async () => {
  emu = await startEmulator({ port: 0, featureGates: { CBORServingAndStorage: true } });
  call = client(emu.url);
  ns = uniq("keys");
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

const configMap = (name: string, data: Dict, labels: Dict = {}, annotations: Dict = {}): Record<string, unknown> => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels, annotations },
  data,
});

describe("the three observed failures", () => {
  it("a create keeps a __proto__ data key", async () => {
    const data = dict([
      ["__proto__", "p"],
      ["constructor", "c"],
      ["b", "2"],
    ]);
    const made = await call("POST", cm(), configMap(uniq("c"), data));
    expect(made.status, made.text).toBe(201);
    expect(entriesOf(made.json.data)).toEqual(entriesOf(data));
    expect(made.text).toContain('"__proto__":"p"');
    const got = await call("GET", cm(made.json.metadata.name));
    expect(entriesOf(got.json.data)).toEqual(entriesOf(data));
    expect(made.json.metadata.managedFields[0].fieldsV1["f:data"]).toHaveProperty(["f:__proto__"]);
  });

  it("a merge patch with a __proto__ key stores it and every key after it", async () => {
    const made = await call("POST", cm(), configMap(uniq("m"), { a: "1" }));
    const r = await call("PATCH", cm(made.json.metadata.name), undefined, {
      raw: '{"data":{"x":"1","__proto__":"p","y":"2","constructor":"c","z":"3"}}',
      headers: { "content-type": MERGE },
    });
    expect(r.status, r.text).toBe(200);
    expect(entriesOf(r.json.data)).toEqual([
      ["__proto__", "p"],
      ["a", "1"],
      ["constructor", "c"],
      ["x", "1"],
      ["y", "2"],
      ["z", "3"],
    ]);
  });

  it("a JSON patch adds, tests, copies, moves and removes /data/__proto__", async () => {
    const made = await call("POST", cm(), configMap(uniq("j"), { a: "1" }));
    const ops = [
      { op: "add", path: "/data/__proto__", value: "p" },
      { op: "test", path: "/data/__proto__", value: "p" },
      { op: "copy", from: "/data/__proto__", path: "/data/constructor" },
      { op: "move", from: "/data/a", path: "/data/toString" },
      { op: "replace", path: "/data/constructor", value: "c" },
    ];
    const r = await call("PATCH", cm(made.json.metadata.name), undefined, { raw: JSON.stringify(ops), headers: { "content-type": JSON_PATCH } });
    expect(r.status, r.text).toBe(200);
    expect(entriesOf(r.json.data)).toEqual([
      ["__proto__", "p"],
      ["constructor", "c"],
      ["toString", "1"],
    ]);
    const removed = await call("PATCH", cm(made.json.metadata.name), undefined, {
      raw: '[{"op":"remove","path":"/data/__proto__"}]',
      headers: { "content-type": JSON_PATCH },
    });
    expect(removed.status, removed.text).toBe(200);
    expect(entriesOf(removed.json.data)).toEqual([
      ["constructor", "c"],
      ["toString", "1"],
    ]);
  });

  it("an inherited name the object lacks is missing, not present", async () => {
    const made = await call("POST", cm(), configMap(uniq("i"), { a: "1" }));
    const r = await call("PATCH", cm(made.json.metadata.name), undefined, {
      raw: '[{"op":"remove","path":"/data/constructor"}]',
      headers: { "content-type": JSON_PATCH },
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      {
        reason: "UnexpectedServerResponse",
        message: "error in remove for path: '/data/constructor': Unable to remove nonexistent key: constructor: missing value",
      },
    ]);
    const t = await call("PATCH", cm(made.json.metadata.name), undefined, {
      raw: '[{"op":"test","path":"/data/toString","value":"x"}]',
      headers: { "content-type": JSON_PATCH },
    });
    expect(t.status).toBe(422);
    expect(t.json.details.causes[0].message).toBe("testing value /data/toString failed: test failed");
  });

  it("a strategic merge patch's null for a key the object lacks stores nothing (discardNullValuesFromPatch)", async () => {
    const made = await call("POST", cm(), configMap(uniq("s"), {}));
    const r = await call("PATCH", cm(made.json.metadata.name), undefined, {
      raw: '{"data":{"__proto__":null,"x":null,"y":"1"}}',
      headers: { "content-type": SMP },
    });
    expect(r.status, r.text).toBe(200);
    expect(entriesOf(r.json.data)).toEqual([["y", "1"]]);
  });

  it("refuses a __proto__ label with the qualified-name 422 instead of dropping it", async () => {
    const name = uniq("l");
    const r = await call("POST", cm(), configMap(name, {}, dict([["__proto__", "x"]])));
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe("Invalid");
    expect(r.json.message).toBe(
      `ConfigMap "${name}" is invalid: metadata.labels: Invalid value: "__proto__": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    const ok = await call("POST", cm(), configMap(uniq("l"), {}, dict([["constructor", "x"]]), dict([["toString", "y"]])));
    expect(ok.status, ok.text).toBe(201);
    expect(entriesOf(ok.json.metadata.labels)).toEqual([["constructor", "x"]]);
    expect(entriesOf(ok.json.metadata.annotations)).toEqual([["toString", "y"]]);
  });
});

describe("server-side apply", () => {
  it("owns f:__proto__ and f:constructor, and removes them when its next apply leaves them out", async () => {
    const name = uniq("a");
    const url = `${cm(name)}?fieldManager=keys`;
    const apply = (data: Dict): Promise<Answer> =>
      send("PATCH", url, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data }, "application/apply-patch+yaml");
    const first = await apply(
      dict([
        ["__proto__", "p"],
        ["constructor", "c"],
        ["x", "1"],
      ]),
    );
    expect(first.status, first.text).toBe(201);
    expect(first.json.metadata.managedFields[0].fieldsV1).toEqual({ "f:data": { "f:__proto__": {}, "f:constructor": {}, "f:x": {} } });
    const second = await apply({ x: "1" });
    expect(second.status, second.text).toBe(200);
    expect(entriesOf(second.json.data)).toEqual([["x", "1"]]);
    expect(second.json.metadata.managedFields[0].fieldsV1).toEqual({ "f:data": { "f:x": {} } });
  });
});

describe("a custom resource schema naming constructor, toString and __proto__", () => {
  it("validates and prunes them as own fields, not Object.prototype's members", async () => {
    const group = `${uniq("g")}.example.com`;
    const crd = await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        names: { plural: "gadgets", kind: "Gadget" },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: {
                    type: "object",
                    required: ["constructor"],
                    properties: dict([
                      ["constructor", { type: "string" } as unknown as string],
                      ["toString", { type: "string" } as unknown as string],
                      ["__proto__", { type: "object", properties: { a: { type: "string" } } } as unknown as string],
                    ]),
                  },
                },
              },
            },
          },
        ],
      },
    });
    expect(crd.status, crd.text).toBe(201);
    const gadgets = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
    const gadget = (name: string, spec: string): string => `{"apiVersion":"${group}/v1","kind":"Gadget","metadata":{"name":"${name}"},"spec":${spec}}`;
    const post = (name: string, spec: string): Promise<Answer> => send("POST", gadgets, gadget(name, spec), "application/json");
    // Before: a missing constructor met `required` and failed `type: string` as "function".
    const missing = await post("a", "{}");
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe(`Gadget.${group} "a" is invalid: spec.constructor: Required value`);
    const made = await post("b", '{"constructor":"x","__proto__":{"a":"1","unknown":"pruned"}}');
    expect(made.status, made.text).toBe(201);
    expect(made.text).toContain('"spec":{"__proto__":{"a":"1"},"constructor":"x"}');
    // ajv skips a property named __proto__: it is checked through a pattern.
    const wrong = await post("c", '{"constructor":"x","__proto__":{"a":1}}');
    expect(wrong.status).toBe(422);
    expect(wrong.json.message).toBe(
      `Gadget.${group} "c" is invalid: spec.__proto__.a: Invalid value: "integer": spec.__proto__.a in body must be of type string: "integer"`,
    );
  });
});

describe("names from the body looked up in the server's own tables", () => {
  it("an apiVersion named constructor, toString or __proto__ is an unregistered version (it was a 500)", async () => {
    for (const apiVersion of ["constructor", "toString", "__proto__"]) {
      const r = await call("POST", cm(), { apiVersion, kind: "ConfigMap", metadata: { name: "x" } });
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toBe(
        `ConfigMap in version "${apiVersion}" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
      );
    }
  });

  it("a webhook's matchLabels key __proto__ is refused as a label key, not dropped", async () => {
    const name = uniq("v");
    const r = await send(
      "POST",
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      `{"metadata":{"name":"${name}"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://x.example.com/"},"sideEffects":"None","admissionReviewVersions":["v1"],"objectSelector":{"matchLabels":{"__proto__":"x","constructor":"y"}}}]}`,
      "application/json",
    );
    expect(r.status, r.text).toBe(422);
    expect(r.json.message).toBe(
      `ValidatingWebhookConfiguration.admissionregistration.k8s.io "${name}" is invalid: webhooks[0].objectSelector.matchLabels: Invalid value: "__proto__": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
  });
});

describe("media type parameters", () => {
  it("an Accept parameter named constructor or __proto__ is ignored like charset (it was a 406)", async () => {
    for (const param of ["charset=utf-8", "constructor=x", "__proto__=x"]) {
      const r = await call("GET", cm(), undefined, { headers: { accept: `application/json;${param}` } });
      expect(r.status, `${param}: ${r.text}`).toBe(200);
      expect(r.headers["content-type"]).toBe("application/json");
    }
  });
});

describe("an emulated daemon's front-proxy extra headers", () => {
  it("X-Remote-Extra-__proto__ and -constructor are extra keys like any other (they were a 500, `not iterable`)", async () => {
    const daemons = await startEmulatedDaemons({
      tls: TLS,
      access: { tokens: {}, allowedUsers: ["carol"], allowedGroups: [] },
      controllerManager: {
        args: [
          "--authentication-kubeconfig=/x",
          "--authorization-kubeconfig=/x",
          `--requestheader-client-ca-file=${PKI.proxyCa}`,
          `--requestheader-allowed-names=${PROXY_ALLOWED_NAME}`,
        ],
        port: 0,
      },
    });
    try {
      const url = daemons.controllerManager?.url as string;
      for (const key of ["__proto__", "constructor", "plain"]) {
        const r = await daemonGet(`${url}/metrics`, { "x-remote-user": "carol", [`x-remote-extra-${key}`]: "v" }, readPair(PKI.proxy));
        expect(r.status, `${key}: ${r.body}`).toBe(200);
      }
    } finally {
      await daemons.close();
    }
  });
});

describe("a mutating webhook's patch", () => {
  it("adds /data/__proto__ and /data/constructor (fast-json-patch's ban made it a 500)", async () => {
    const hook = await startWebhookServer();
    const mwc = `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${uniq("m")}`;
    try {
      const configName = mwc.slice(mwc.lastIndexOf("/") + 1);
      const registered = await call("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
        metadata: { name: configName },
        webhooks: [
          {
            name: "keys.tollgate.dev",
            clientConfig: { url: `${hook.url}/keys`, caBundle: hook.caBundle },
            rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      });
      expect(registered.status, registered.text).toBe(201);
      hook.respond((review) =>
        allow(
          review,
          jsonPatch([
            { op: "add", path: "/data/__proto__", value: "p" },
            { op: "add", path: "/data/constructor", value: "c" },
          ]),
        ),
      );
      const r = await call("POST", cm(), configMap(uniq("w"), { a: "1" }));
      expect(r.status, r.text).toBe(201);
      expect(entriesOf(r.json.data)).toEqual([
        ["__proto__", "p"],
        ["a", "1"],
        ["constructor", "c"],
      ]);
    } finally {
      await call("DELETE", mwc);
      await hook.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The property: every write path and every encoding keeps exactly the keys written.

const plainKey = fc.stringMatching(/^[a-z0-9][-._a-z0-9]{0,6}[a-z0-9]$/);
const dataKey = fc.oneof(fc.constantFrom(...INHERITED), plainKey);
const labelKey = fc.oneof(fc.constantFrom(...INHERITED_LABELS), plainKey);
const value = fc.stringMatching(/^[a-z0-9]{0,6}$/);
const labelValue = fc.stringMatching(/^([a-z0-9]([a-z0-9]{0,4}[a-z0-9])?)?$/);
const entries = (key: fc.Arbitrary<string>, v: fc.Arbitrary<string>): fc.Arbitrary<Dict> =>
  fc.uniqueArray(fc.tuple(key, v), { maxLength: 5, selector: ([k]) => k }).map(dict);
/** A patch to a dict: new values, and keys to delete. */
const change = fc.record({ set: entries(dataKey, value), drop: fc.uniqueArray(dataKey, { maxLength: 3 }) });

type Change = { set: Dict; drop: string[] };
/** The RFC 7386 form of a change: null deletes; a key both set and dropped is set. */
const patchOf = (c: Change): Record<string, string | null> => Object.fromEntries([...c.drop.map((k) => [k, null]), ...Object.entries(c.set)]);
const applyChange = (d: Dict, c: Change): Dict =>
  dict([...Object.entries(d).filter(([k]) => !c.drop.includes(k) && !Object.hasOwn(c.set, k)), ...Object.entries(c.set)]);

const encoding = fc.constantFrom<Encoding>("json", "yaml", "protobuf", "cbor");
const watchEncoding = fc.constantFrom<"json" | "protobuf" | "cbor">("json", "protobuf", "cbor");

interface Step {
  rv: string;
  data: Dict;
}

/** Reads the object back by GET in every encoding, by list, and checks the watch saw every state. */
async function checkReadBack(
  collection: string,
  name: string,
  want: () => Record<string, [string, unknown][]>,
  steps: Step[],
  watch: WatchReader,
  encodings: readonly Encoding[],
): Promise<void> {
  for (const enc of encodings) {
    const got = await send("GET", `${collection}/${name}`, undefined, "", enc);
    expect(got.status, got.text).toBe(200);
    expectHolds(got.json, want());
  }
  const list = await send("GET", `${collection}?fieldSelector=metadata.name%3D${name}`, undefined, "");
  expect(list.json.items).toHaveLength(1);
  expectHolds(list.json.items[0], want());
  const distinct = steps.filter((s, i) => i === 0 || s.rv !== steps[i - 1]?.rv);
  const events = await watch.take(distinct.length, 3000);
  expect(events.map((e) => e.object.metadata.resourceVersion)).toEqual(distinct.map((s) => s.rv));
  for (const [i, e] of events.entries()) expect(entriesOf(pick(e.object))).toEqual(entriesOf(distinct[i]?.data));
}

/** Where the property's dict lives in an object: ConfigMap data, or a custom resource's spec.free. */
let pick: (o: any) => unknown = (o) => o.data;

function expectHolds(o: any, want: Record<string, [string, unknown][]>): void {
  expect(entriesOf(pick(o))).toEqual(want["data"]);
  if (want["labels"]) expect(entriesOf(o.metadata.labels)).toEqual(want["labels"]);
  if (want["annotations"]) expect(entriesOf(o.metadata.annotations)).toEqual(want["annotations"]);
}

describe("keys that are Object.prototype's names, through every write path and encoding", () => {
  it("ConfigMap data, labels and annotations", async () => {
    pick = (o) => o.data;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          created: entries(dataKey, value),
          labels: entries(labelKey, labelValue),
          annotations: entries(labelKey, value),
          updated: entries(dataKey, value),
          merge: change,
          strategic: change,
          jsonPatch: change,
          applied: entries(dataKey, value),
          createIn: encoding,
          updateIn: encoding,
          applyIn: fc.constantFrom("yaml", "cbor"),
          watchIn: watchEncoding,
        }),
        async (p) => {
          const name = uniq("p");
          const watch = await openDecodedWatch(
            emu.url,
            `${cm()}?watch=true&fieldSelector=metadata.name%3D${name}`,
            { accept: MEDIA[p.watchIn] },
            WATCH_DECODERS[p.watchIn](),
          );
          try {
            const steps: Step[] = [];
            let data = p.created;
            const labels = p.labels;
            const annotations = p.annotations;
            const want = (): Record<string, [string, unknown][]> => ({ data: entriesOf(data), labels: entriesOf(labels), annotations: entriesOf(annotations) });
            const record = (r: Answer): void => {
              expect(r.status, r.text).toBeLessThan(300);
              expectHolds(r.json, want());
              steps.push({ rv: r.json.metadata.resourceVersion, data });
            };
            record(await send("POST", cm(), configMap(name, data, labels, annotations), MEDIA[p.createIn], p.createIn));
            data = p.updated;
            record(await send("PUT", cm(name), configMap(name, data, labels, annotations), MEDIA[p.updateIn], p.updateIn));
            const withNulls = (c: Change): string => JSON.stringify({ data: patchOf(c) });
            data = applyChange(data, p.merge);
            record(await send("PATCH", cm(name), withNulls(p.merge), MERGE));
            data = applyChange(data, p.strategic);
            record(await send("PATCH", cm(name), withNulls(p.strategic), SMP));

            // An empty data is left out of the object (omitempty): an add below it needs it back.
            const ops: unknown[] = Object.keys(data).length === 0 ? [{ op: "add", path: "/data", value: {} }] : [];
            for (const k of p.jsonPatch.drop) if (Object.hasOwn(data, k)) ops.push({ op: "remove", path: `/data/${k}` });
            for (const [k, v] of Object.entries(p.jsonPatch.set))
              ops.push({ op: Object.hasOwn(data, k) && !p.jsonPatch.drop.includes(k) ? "replace" : "add", path: `/data/${k}`, value: v });
            data = applyChange(data, p.jsonPatch);
            record(await send("PATCH", cm(name), JSON.stringify(ops), JSON_PATCH));

            // A first apply by its manager, forced: the live keys stay, the applied ones take its values.
            data = dict([...Object.entries(data).filter(([k]) => !Object.hasOwn(p.applied, k)), ...Object.entries(p.applied)]);
            const config = { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: p.applied };
            record(await send("PATCH", `${cm(name)}?fieldManager=prop&force=true`, config, `application/apply-patch+${p.applyIn}`));

            await checkReadBack(cm(), name, want, steps, watch, ["json", "yaml", "protobuf", "cbor"]);
          } finally {
            watch.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("a custom resource's free-form fields, nested", async () => {
    const group = `${uniq("k")}.example.com`;
    const crd = await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `things.${group}` },
      spec: {
        group,
        names: { plural: "things", kind: "Thing" },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: { free: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } } },
              },
            },
          },
        ],
      },
    });
    expect(crd.status, crd.text).toBe(201);
    const things = `/apis/${group}/v1/namespaces/${ns}/things`;
    const thing = (name: string, free: unknown): Record<string, unknown> => ({ apiVersion: `${group}/v1`, kind: "Thing", metadata: { name }, spec: { free } });
    // The dict sits one level down, under a key that is itself a prototype name.
    pick = (o) => {
      const free = o.spec?.free ?? {};
      return Object.getOwnPropertyDescriptor(free, "__proto__")?.value;
    };
    const nest = (d: Dict): unknown => dict([["__proto__", d as unknown as string]]);
    const crEncoding = fc.constantFrom<Encoding>("json", "yaml", "cbor");
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          created: entries(dataKey, value),
          updated: entries(dataKey, value),
          merge: change,
          jsonPatch: change,
          applied: entries(dataKey, value),
          createIn: crEncoding,
          watchIn: fc.constantFrom<"json" | "cbor">("json", "cbor"),
        }),
        async (p) => {
          const name = uniq("t");
          const watch = await openDecodedWatch(
            emu.url,
            `${things}?watch=true&fieldSelector=metadata.name%3D${name}`,
            { accept: MEDIA[p.watchIn] },
            WATCH_DECODERS[p.watchIn](),
          );
          try {
            const steps: Step[] = [];
            let data = p.created;
            const want = (): Record<string, [string, unknown][]> => ({ data: entriesOf(data) });
            const record = (r: Answer): void => {
              expect(r.status, r.text).toBeLessThan(300);
              expectHolds(r.json, want());
              steps.push({ rv: r.json.metadata.resourceVersion, data });
            };
            const made = await send("POST", things, thing(name, nest(data)), MEDIA[p.createIn], p.createIn);
            record(made);
            data = p.updated;
            record(await send("PUT", `${things}/${name}`, { ...thing(name, nest(data)), metadata: made.json.metadata }, MEDIA[p.createIn], p.createIn));
            data = applyChange(data, p.merge);
            record(await send("PATCH", `${things}/${name}`, `{"spec":{"free":{"__proto__":${JSON.stringify(patchOf(p.merge))}}}}`, MERGE));
            const ops: unknown[] = [];
            for (const k of p.jsonPatch.drop) if (Object.hasOwn(data, k)) ops.push({ op: "remove", path: `/spec/free/__proto__/${k}` });
            for (const [k, v] of Object.entries(p.jsonPatch.set)) ops.push({ op: "add", path: `/spec/free/__proto__/${k}`, value: v });
            data = applyChange(data, p.jsonPatch);
            record(await send("PATCH", `${things}/${name}`, JSON.stringify(ops), JSON_PATCH));
            // The whole dict is applied: the emulator owns a free-form object as one atomic value
            // (a real server's is granular), and with the live keys in it both give one answer.
            data = dict([...Object.entries(data).filter(([k]) => !Object.hasOwn(p.applied, k)), ...Object.entries(p.applied)]);
            record(await send("PATCH", `${things}/${name}?fieldManager=prop&force=true`, thing(name, nest(data)), "application/apply-patch+yaml"));
            await checkReadBack(things, name, want, steps, watch, ["json", "yaml", "cbor"]);
          } finally {
            watch.close();
          }
        },
      ),
      { numRuns: 20 },
    );
  });
});
