/**
 * Content negotiation: q values, wildcards, the exact as/g/v match, which encodings take which
 * representation, Status answers, request body types, gzip tokens, and the 406/415 messages
 * with the CBOR gate off and on.
 */
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatusError } from "../../lib/emulator/apimachinery/api-errors.js";
import { DEFAULT_FEATURE_GATES, type FeatureGates } from "../../lib/emulator/apimachinery/feature-gates.js";
import {
  type Negotiated,
  negotiateAccept,
  negotiateStatusEncoding,
  negotiateWatch,
  requestBodyEncoding,
  servedMediaTypes,
  streamMediaTypes,
  wantsGzip,
} from "../../lib/emulator/endpoints/negotiation.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody } from "./support.js";

const OFF: FeatureGates = DEFAULT_FEATURE_GATES;
const ON: FeatureGates = { ...DEFAULT_FEATURE_GATES, CBORServingAndStorage: true };
const T1 = "as=Table;v=v1;g=meta.k8s.io";
const PB = "application/vnd.kubernetes.protobuf";

const n = (accept: string | undefined, gates = OFF): Negotiated | undefined => negotiateAccept(accept, gates);
const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe("negotiateAccept", () => {
  it("answers JSON without an Accept header, or for */* and application/*", () => {
    for (const accept of [undefined, "", "*/*", "application/*", "application/json", "application/json;charset=utf-8"]) {
      expect(n(accept), String(accept)).toEqual({ encoding: "json", representation: { as: "object" } });
    }
  });

  it("picks by q, then by the order of the header, then by the server's order", () => {
    expect(n("application/yaml, application/json")?.encoding).toBe("yaml");
    expect(n("application/json;q=0.5, application/yaml")?.encoding).toBe("yaml");
    expect(n(`application/json;q=0.9, ${PB}`)?.encoding).toBe("protobuf");
    expect(n(`${PB}, application/json`)?.encoding).toBe("protobuf");
    // q=0 excludes a type even when a wildcard would allow it.
    expect(n("application/json;q=0, */*")?.encoding).toBe("yaml");
    expect(n("application/json;q=0")).toBeUndefined();
    expect(n("text/html, image/*")).toBeUndefined();
    expect(n("garbage")).toBeUndefined();
  });

  it("takes as/g/v only as an exact, case-sensitive match", () => {
    expect(n(`application/json;${T1}`)?.representation).toEqual({ as: "Table", version: "v1" });
    expect(n("application/json;as=Table;v=v1beta1;g=meta.k8s.io")?.representation).toEqual({ as: "Table", version: "v1beta1" });
    expect(n("application/json;g=meta.k8s.io;v=v1;as=Table")?.representation).toEqual({ as: "Table", version: "v1" });
    for (const odd of [
      "as=table;v=v1;g=meta.k8s.io",
      "as=Table;v=v7;g=meta.k8s.io",
      "as=Table;v=v1;g=meta.example.com",
      "as=Table;v=v1",
      "as=Table",
      "as=Widget;v=v1;g=meta.k8s.io",
    ]) {
      expect(n(`application/json;${odd}`), odd).toBeUndefined();
    }
    // A fallback without parameters gets the plain object.
    expect(n("application/json;as=Table;v=v7;g=meta.k8s.io, application/json;q=0.9")).toEqual({ encoding: "json", representation: { as: "object" } });
    // A plain range never selects a transformed form.
    expect(n(`application/json, application/json;${T1}`)?.representation).toEqual({ as: "object" });
  });

  it("offers Table only in JSON and YAML, PartialObjectMetadata in every encoding", () => {
    expect(n(`application/yaml;${T1}`)).toEqual({ encoding: "yaml", representation: { as: "Table", version: "v1" } });
    expect(n(`${PB};${T1}`)).toBeUndefined();
    expect(n(`${PB};${T1}, application/json`)).toEqual({ encoding: "json", representation: { as: "object" } });
    expect(n(`application/cbor;${T1}`, ON)).toBeUndefined();
    for (const [base, encoding] of [
      ["application/json", "json"],
      ["application/yaml", "yaml"],
      [PB, "protobuf"],
    ] as const) {
      expect(n(`${base};as=PartialObjectMetadata;g=meta.k8s.io;v=v1`)).toEqual({ encoding, representation: { as: "PartialObjectMetadata", version: "v1" } });
      expect(n(`${base};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`)).toEqual({
        encoding,
        representation: { as: "PartialObjectMetadataList", version: "v1" },
      });
    }
    expect(n("application/cbor;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", ON)?.encoding).toBe("cbor");
    // A wildcard with Table parameters: the first serializer that can make a Table.
    expect(n(`*/*;${T1}`)).toEqual({ encoding: "json", representation: { as: "Table", version: "v1" } });
  });

  it("serves CBOR only with its gate, and never for an Accept of application/cbor-seq", () => {
    expect(n("application/cbor")).toBeUndefined();
    expect(n("application/cbor", ON)?.encoding).toBe("cbor");
    expect(n("application/cbor-seq", ON)).toBeUndefined();
    expect(n("*/*", ON)?.encoding).toBe("json");
  });

  it("accepts a stream parameter only as stream=watch on an encoding with a stream form", () => {
    expect(n("application/json;stream=watch")?.encoding).toBe("json");
    expect(n(`${PB};stream=watch`)?.encoding).toBe("protobuf");
    expect(n("application/yaml;stream=watch")).toBeUndefined();
    expect(n("application/json;stream=other")).toBeUndefined();
  });

  it("negotiates a Status without transformations", () => {
    expect(negotiateStatusEncoding(`application/json;${T1}`, OFF)).toBeUndefined();
    expect(negotiateStatusEncoding(`application/json;${T1}, application/yaml`, OFF)).toBe("yaml");
    expect(negotiateStatusEncoding(PB, OFF)).toBe("protobuf");
    expect(negotiateStatusEncoding(undefined, OFF)).toBe("json");
  });

  it("refuses a YAML watch with the stream media types", () => {
    const yaml = negotiateAccept("application/yaml, application/json", OFF) as Negotiated;
    expect(() => negotiateWatch(yaml, OFF)).toThrow(StatusError);
    expect(() => negotiateWatch(yaml, ON)).toThrow(
      "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch, application/cbor-seq",
    );
    expect(negotiateWatch(negotiateAccept(PB, OFF) as Negotiated, OFF).encoding).toBe("protobuf");
  });

  it("lists the media types per gate", () => {
    expect(servedMediaTypes(OFF)).toEqual(["application/json", "application/yaml", PB]);
    expect(servedMediaTypes(ON)).toEqual(["application/json", "application/yaml", PB, "application/cbor"]);
    expect(streamMediaTypes(OFF)).toEqual(["application/json;stream=watch", `${PB};stream=watch`]);
  });
});

describe("request bodies and gzip", () => {
  it("reads the body type from Content-Type, parameters ignored, none meaning JSON", () => {
    expect(requestBodyEncoding(req({}), OFF)).toBe("json");
    expect(requestBodyEncoding(req({ "content-type": "application/json; charset=utf-8" }), OFF)).toBe("json");
    expect(requestBodyEncoding(req({ "content-type": "application/yaml" }), OFF)).toBe("yaml");
    expect(requestBodyEncoding(req({ "content-type": PB }), OFF)).toBe("protobuf");
    expect(requestBodyEncoding(req({ "content-type": "application/cbor" }), ON)).toBe("cbor");
    for (const ct of ["application/cbor", "text/plain", "application/merge-patch+json", "application/x-yaml", "not a type"]) {
      expect(() => requestBodyEncoding(req({ "content-type": ct }), OFF), ct).toThrow(StatusError);
    }
  });

  it("gzips only for an exact gzip token, with the gate on", () => {
    expect(wantsGzip(req({ "accept-encoding": "gzip" }), OFF)).toBe(true);
    expect(wantsGzip(req({ "accept-encoding": "deflate, gzip, br" }), OFF)).toBe(true);
    expect(wantsGzip(req({ "accept-encoding": "br" }), OFF)).toBe(false);
    expect(wantsGzip(req({ "accept-encoding": "gzip;q=1.0" }), OFF)).toBe(false);
    expect(wantsGzip(req({}), OFF)).toBe(false);
    expect(wantsGzip(req({ "accept-encoding": "gzip" }), { ...OFF, APIResponseCompression: false })).toBe(false);
  });
});

describe("406 and 415 over HTTP, per gate", () => {
  const CM = "/api/v1/namespaces/default/configmaps";
  let off: RunningEmulator;
  let on: RunningEmulator;
  beforeAll(async () => {
    off = await startEmulator({ port: 0 });
    on = await startEmulator({ port: 0, featureGates: { CBORServingAndStorage: true } });
  });
  afterAll(async () => {
    await off.close();
    await on.close();
  });

  it("answers 406 with indented JSON naming the served types", async () => {
    for (const [emu, types] of [
      [() => off, "application/json, application/yaml, application/vnd.kubernetes.protobuf"],
      [() => on, "application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor"],
    ] as const) {
      const r = await client(emu().url)("GET", CM, undefined, { headers: { accept: "text/html" } });
      expect(r.status).toBe(406);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.text).toBe(
        JSON.stringify(
          {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: `only the following media types are accepted: ${types}`,
            reason: "NotAcceptable",
            code: 406,
          },
          null,
          2,
        ),
      );
    }
  });

  it("answers 415 naming the served types", async () => {
    const offR = await client(off.url)("POST", CM, undefined, { raw: "x", headers: { "content-type": "application/cbor" } });
    expect(offR.status).toBe(415);
    expect(offR.json.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
    const onR = await client(on.url)("POST", CM, undefined, { raw: "x", headers: { "content-type": "text/csv" } });
    expect(onR.json.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor",
    );
  });

  it("answers errors in the negotiated encoding, and a YAML watch with 406", async () => {
    const call = client(off.url);
    const missing = await call("GET", `${CM}/nope`, undefined, { headers: { accept: "application/yaml" } });
    expect([missing.status, missing.headers["content-type"]]).toEqual([404, "application/yaml"]);
    expect(missing.text).toContain("reason: NotFound");
    const tableOnly = await call("GET", `${CM}/nope`, undefined, { headers: { accept: `application/json;${T1}` } });
    // The Status has no Table form: the Accept allows none for it, so indented JSON.
    expect([tableOnly.status, tableOnly.text.startsWith("{\n")]).toEqual([404, true]);
    const watch = await call("GET", `${CM}?watch=true`, undefined, { headers: { accept: "application/yaml" } });
    expect(watch.status).toBe(406);
    const created = await call("POST", CM, configMapBody("neg-ok"), { headers: { accept: "application/yaml" } });
    expect([created.status, created.headers["content-type"]]).toEqual([201, "application/yaml"]);
  });
});
