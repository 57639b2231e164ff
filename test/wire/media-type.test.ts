import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AcceptEntry,
  formatMediaType,
  isCbor,
  isCborSeq,
  isJson,
  isProtobuf,
  isYaml,
  type MediaType,
  negotiate,
  type Offer,
  parseAccept,
  parseMediaType,
} from "../../lib/wire/media-type.js";

// kubectl 1.32.4's real Accept headers (wire-facts §6.1, kubectl-1.32-traces).
const KUBECTL_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const KUBECTL_DISCOVERY =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const KUBECTL_LEGACY = "application/json, */*";

const mt = (s: string): MediaType => {
  const m = parseMediaType(s);
  if (!m) throw new Error(`test media type does not parse: ${s}`);
  return m;
};

const JSON_OFFER = mt("application/json");
const YAML_OFFER = mt("application/yaml");
const PROTO_OFFER = mt("application/vnd.kubernetes.protobuf");
const TABLE_V1 = mt("application/json;as=Table;g=meta.k8s.io;v=v1");
const TABLE_V1BETA1 = mt("application/json;as=Table;g=meta.k8s.io;v=v1beta1");
const POM = mt("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
const DISCO_V2 = mt("application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2");
const DISCO_V2BETA1 = mt("application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2beta1");

describe("parseMediaType / formatMediaType", () => {
  it.each([
    ["application/json", { type: "application", subtype: "json", params: {} }],
    ["Application/JSON", { type: "application", subtype: "json", params: {} }],
    ["application/json;charset=utf-8", { type: "application", subtype: "json", params: { charset: "utf-8" } }],
    ["application/json ; Charset = utf-8", undefined], // no whitespace around "=" (RFC 9110)
    ["application/json ;  CHARSET=UTF-8 ", { type: "application", subtype: "json", params: { charset: "UTF-8" } }],
    ['application/json;as="Table";g=meta.k8s.io;v=v1', { type: "application", subtype: "json", params: { as: "Table", g: "meta.k8s.io", v: "v1" } }],
    ['text/plain;x="a \\"b\\", c"', { type: "text", subtype: "plain", params: { x: 'a "b", c' } }],
    ['a/b;x=""', { type: "a", subtype: "b", params: { x: "" } }],
    ["application/json;", { type: "application", subtype: "json", params: {} }],
    ["application/vnd.kubernetes.protobuf;stream=watch", { type: "application", subtype: "vnd.kubernetes.protobuf", params: { stream: "watch" } }],
    ["*/*", { type: "*", subtype: "*", params: {} }],
    ["a/b;__proto__=x", { type: "a", subtype: "b", params: JSON.parse('{"__proto__":"x"}') as Record<string, string> }],
    ["application/*", { type: "application", subtype: "*", params: {} }],
  ])("parses %j", (s, expected) => {
    expect(parseMediaType(s)).toEqual(expected);
  });

  it.each([
    "",
    "application",
    "application/",
    "/json",
    "*/json",
    "application/json;x",
    "application/json;x=",
    'a/b;x="unterminated',
    "a/b;x=1;x=2",
    "a/b, c/d",
    "a b/c",
    "a/b;x=y z",
  ])("rejects %j", (s) => {
    expect(parseMediaType(s)).toBeUndefined();
  });

  it("formats without spaces, as the server's Content-Type", () => {
    expect(formatMediaType(TABLE_V1)).toBe("application/json;as=Table;g=meta.k8s.io;v=v1");
    expect(formatMediaType({ type: "text", subtype: "plain", params: { x: 'a "b"', y: "z" } })).toBe('text/plain;x="a \\"b\\"";y=z');
  });

  it("property: format then parse gives the same media type", () => {
    const token = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,10}$/);
    const value = fc.string({ maxLength: 12 }).filter((s) => !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(s));
    fc.assert(
      fc.property(token, token, fc.dictionary(token, value, { maxKeys: 4 }), (type, subtype, params) => {
        const m = { type, subtype, params: { ...params } };
        expect(parseMediaType(formatMediaType(m))).toEqual(m);
      }),
    );
  });
});

describe("parseAccept", () => {
  it("an absent or blank header means */*", () => {
    for (const h of [undefined, "", "   "]) expect(parseAccept(h)).toEqual([{ type: "*", subtype: "*", params: {}, q: 1 }]);
  });

  it("keeps header order and takes q out of the parameters", () => {
    expect(parseAccept("text/html;level=1;q=0.5 , application/json,*/*;q=0.1")).toEqual([
      { type: "text", subtype: "html", params: { level: "1" }, q: 0.5 },
      { type: "application", subtype: "json", params: {}, q: 1 },
      { type: "*", subtype: "*", params: {}, q: 0.1 },
    ]);
  });

  it("parses kubectl's Table header into three ranges", () => {
    const a = parseAccept(KUBECTL_TABLE);
    expect(a.map((e) => [e.params.as, e.params.v, e.params.g, e.q])).toEqual([
      ["Table", "v1", "meta.k8s.io", 1],
      ["Table", "v1beta1", "meta.k8s.io", 1],
      [undefined, undefined, undefined, 1],
    ]);
  });

  it("drops a range with an invalid q or bad syntax and keeps the rest", () => {
    for (const bad of ["q=2", "q=1.5", "q=-1", "q=0.0001", "q=abc", "q=", "q=.5"]) {
      expect(parseAccept(`application/yaml;${bad}, application/json`), bad).toEqual([{ type: "application", subtype: "json", params: {}, q: 1 }]);
    }
    expect(parseAccept("garbage, application/json;q=0.9")).toEqual([{ type: "application", subtype: "json", params: {}, q: 0.9 }]);
    expect(parseAccept('a/b;x="1,2", c/d').map((e) => e.params)).toEqual([{ x: "1,2" }, {}]);
    expect(parseAccept('a/b;x="1,2;q=0", c/d').map((e) => e.q)).toEqual([1, 1]);
    expect(parseAccept(",,application/json,,")).toHaveLength(1);
  });

  it.each([
    ["q=0", 0],
    ["q=0.", 0],
    ["q=0.123", 0.123],
    ["q=1.000", 1],
    ["Q=0.5", 0.5],
  ])("accepts the qvalue %s", (q, n) => {
    expect(parseAccept(`a/b;${q}`)[0]?.q).toBe(n);
  });
});

describe("negotiate", () => {
  const SERVER_OFFERS = [JSON_OFFER, YAML_OFFER, PROTO_OFFER];
  const TABLE_OFFERS = [TABLE_V1, POM, ...SERVER_OFFERS];
  const cases: Array<[string, string | undefined, readonly Offer[], Offer | undefined]> = [
    ["kubectl get (Table)", KUBECTL_TABLE, TABLE_OFFERS, TABLE_V1],
    ["kubectl get, server without Table", KUBECTL_TABLE, SERVER_OFFERS, JSON_OFFER],
    ["kubectl get, server offering only v1beta1 Table", KUBECTL_TABLE, [TABLE_V1BETA1, JSON_OFFER], TABLE_V1BETA1],
    ["kubectl discovery, aggregated v2 available", KUBECTL_DISCOVERY, [DISCO_V2BETA1, DISCO_V2, JSON_OFFER], DISCO_V2],
    ["kubectl discovery, legacy server", KUBECTL_DISCOVERY, [JSON_OFFER], JSON_OFFER],
    ["kubectl legacy discovery", KUBECTL_LEGACY, [YAML_OFFER, JSON_OFFER], JSON_OFFER],
    ["*/* picks the server's first offer", "*/*", SERVER_OFFERS, JSON_OFFER],
    ["no header", undefined, SERVER_OFFERS, JSON_OFFER],
    ["plain JSON never gets the Table form", "application/json", [TABLE_V1, JSON_OFFER], JSON_OFFER],
    ["*/* never gets the Table form", "*/*", [TABLE_V1], undefined],
    ["Table only, not supported: 406", "application/json;as=Table;v=v1;g=meta.k8s.io", SERVER_OFFERS, undefined],
    ["Table with a q=0.9 fallback", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json;q=0.9", SERVER_OFFERS, JSON_OFFER],
    ["as/g/v must all agree", "application/json;as=Table;g=meta.k8s.io", [TABLE_V1, JSON_OFFER], undefined],
    ["as is case-sensitive", "application/json;as=table;g=meta.k8s.io;v=v1", [TABLE_V1], undefined],
    ["metadata-only", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", TABLE_OFFERS, POM],
    ["higher q wins over header order", "application/json;q=0.5, application/yaml", SERVER_OFFERS, YAML_OFFER],
    ["same q: header order", "application/yaml, application/json", SERVER_OFFERS, YAML_OFFER],
    ["protobuf with JSON fallback", "application/vnd.kubernetes.protobuf, application/json", SERVER_OFFERS, PROTO_OFFER],
    ["q=0 excludes even when */* allows", "application/json;q=0, */*", SERVER_OFFERS, YAML_OFFER],
    ["q=0 on */* alone: nothing", "*/*;q=0", SERVER_OFFERS, undefined],
    ["specific range beats a wildcard with the same q", "*/*, application/yaml", SERVER_OFFERS, YAML_OFFER],
    ["type/* beats */*", "*/*;q=0.5, application/*;q=0.5", [mt("text/plain"), YAML_OFFER], YAML_OFFER],
    ["unknown type: 406", "application/cbor", SERVER_OFFERS, undefined],
    ["charset on the range is fine", "application/json;charset=utf-8", SERVER_OFFERS, JSON_OFFER],
    [
      "offer's stream=watch is fine",
      "application/vnd.kubernetes.protobuf",
      [mt("application/vnd.kubernetes.protobuf;stream=watch")],
      mt("application/vnd.kubernetes.protobuf;stream=watch"),
    ],
    ["conflicting parameter value", "application/vnd.kubernetes.protobuf;stream=other", [mt("application/vnd.kubernetes.protobuf;stream=watch")], undefined],
    ["empty accept list", "garbage", SERVER_OFFERS, undefined],
  ];
  it.each(cases)("%s", (_name, header, offers, expected) => {
    expect(negotiate(parseAccept(header), offers)).toEqual(expected);
  });

  it("returns the offer object itself, with fields the caller attached", () => {
    const offers = [
      { ...JSON_OFFER, serializer: "json" },
      { ...YAML_OFFER, serializer: "yaml" },
    ];
    expect(negotiate(parseAccept("application/yaml"), offers)?.serializer).toBe("yaml");
  });

  it("property: never returns an offer that no range with q > 0 accepts", () => {
    const types = fc.constantFrom("application", "text", "*");
    const subtypes = fc.constantFrom("json", "yaml", "vnd.kubernetes.protobuf", "cbor", "*");
    const repr = fc.option(
      fc.record({ as: fc.constantFrom("Table", "PartialObjectMetadata"), g: fc.constantFrom("meta.k8s.io"), v: fc.constantFrom("v1", "v1beta1") }),
      { nil: undefined },
    );
    const entry: fc.Arbitrary<AcceptEntry> = fc
      .record({ type: types, subtype: subtypes, repr, q: fc.constantFrom(0, 0.1, 0.5, 0.9, 1) })
      .map(({ type, subtype, repr: r, q }) => ({ type, subtype: type === "*" ? "*" : subtype, params: { ...r }, q }));
    const offer: fc.Arbitrary<Offer> = fc
      .record({ type: fc.constantFrom("application", "text"), subtype: subtypes.filter((s) => s !== "*"), repr })
      .map(({ type, subtype, repr: r }) => ({ type, subtype, params: { ...r } }));
    // An independent reading of the rule: type and subtype match (or are wildcards) and the
    // as/g/v triple is identical on both sides.
    const accepts = (e: AcceptEntry, o: Offer): boolean =>
      e.q > 0 &&
      (e.type === "*" || e.type === o.type) &&
      (e.subtype === "*" || e.subtype === o.subtype) &&
      (["as", "g", "v"] as const).every((p) => (e.params[p] ?? "") === (o.params[p] ?? ""));
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.array(offer, { maxLength: 6 }), (accept, offers) => {
        const chosen = negotiate(accept, offers);
        if (chosen === undefined) return;
        expect(offers).toContain(chosen);
        expect(accept.some((e) => accepts(e, chosen))).toBe(true);
      }),
    );
  });

  it("property: whatever header order, the result has the highest q available", () => {
    const offers = [JSON_OFFER, YAML_OFFER, PROTO_OFFER];
    const entry = fc.record({ sub: fc.constantFrom("json", "yaml", "vnd.kubernetes.protobuf"), q: fc.constantFrom(0.1, 0.3, 0.7, 1) });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.sub, minLength: 1, maxLength: 3 }), (entries) => {
        const header = entries.map((e) => `application/${e.sub};q=${e.q}`).join(", ");
        const chosen = negotiate(parseAccept(header), offers);
        const best = Math.max(...entries.map((e) => e.q));
        expect(entries.find((e) => e.sub === chosen?.subtype)?.q).toBe(best);
      }),
    );
  });
});

describe("media type predicates", () => {
  it.each([
    [isJson, "application/json", true],
    [isJson, "application/json;as=Table;g=meta.k8s.io;v=v1", true],
    [isJson, "application/merge-patch+json", false],
    [isJson, "application/yaml", false],
    [isYaml, "application/yaml", true],
    [isYaml, "application/apply-patch+yaml", false],
    [isCbor, "application/cbor", true],
    [isCbor, "application/cbor-seq", false],
    [isCborSeq, "application/cbor-seq", true],
    [isProtobuf, "application/vnd.kubernetes.protobuf", true],
    [isProtobuf, "application/vnd.kubernetes.protobuf;stream=watch", true],
    [isProtobuf, "application/vnd.other.protobuf", false],
    [isJson, "not a media type", false],
  ] as const)("%o(%s) is %s", (fn, s, expected) => {
    expect(fn(s)).toBe(expected);
    const parsed = parseMediaType(s);
    if (parsed) expect(fn(parsed)).toBe(expected);
  });

  it("isProtobuf takes doc1's vendor placeholder", () => {
    expect(isProtobuf("application/vnd.example.protobuf", "example")).toBe(true);
    expect(isProtobuf("application/vnd.kubernetes.protobuf", "example")).toBe(false);
  });
});
