/**
 * Duplicate fields in request bodies (doc1 "Field validation behaviour"): a Warning per duplicate
 * under Warn (the default), a 400 listing them with the unknown fields under Strict, silence
 * under Ignore; JSON in document order, YAML with yaml.v2's line-numbered error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonStrictErrors, strictWarnings, yamlDuplicateLines } from "../../lib/emulator/apimachinery/strict-decoding.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { configMapStrategy } from "../../lib/emulator/registry/index.js";
import { parseJsonStrict } from "../../lib/wire/json-strict.js";
import { client, type Reply, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
const NS = "default";
const CM = `/api/v1/namespaces/${NS}/configmaps`;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

/** Warning header items, unquoted. */
function warnings(r: Reply): string[] {
  const raw = r.headers["warning"];
  const text = Array.isArray(raw) ? raw.join(", ") : (raw ?? "");
  return [...text.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1] as string}"`) as string);
}

function post(text: string, level?: string, contentType = "application/json"): Promise<Reply> {
  return call("POST", `${CM}${level ? `?fieldValidation=${level}` : ""}`, undefined, { raw: text, headers: { "content-type": contentType } });
}

const json = (name: string, middle: string, tail = ""): string =>
  `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"${middle}},"data":{"k":"v"}${tail}}`;

describe("JSON bodies", () => {
  it("Warn (the default): created, one Warning per duplicate, the last value kept", async () => {
    const name = uniq("dup");
    const r = await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":{"a":"1","a":"2"}},"data":{"k":"v","k":"w"}}`);
    expect(r.status, r.text).toBe(201);
    expect(warnings(r)).toEqual(['duplicate field "metadata.labels.a"', 'duplicate field "data.k"']);
    expect(r.json.metadata.labels).toEqual({ a: "2" });
    expect(r.json.data).toEqual({ k: "w" });
  });

  it("Strict: 400 listing duplicates and unknown fields in document order, nothing stored", async () => {
    const name = uniq("dup");
    const r = await post(json(name, `,"name":"${name}"`, ',"extra":true'), "Strict");
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    expect(r.json.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "extra"',
    );
    expect((await call("GET", `${CM}/${name}`)).status).toBe(404);

    const first = await post(`{"extra":1,"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","bogus":2,"name":"${name}"},"data":{}}`, "Strict");
    expect(first.json.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra", unknown field "metadata.bogus", duplicate field "metadata.name"',
    );
  });

  it("Ignore: created silently", async () => {
    const name = uniq("dup");
    const r = await post(json(name, `,"name":"${name}"`, ',"extra":true'), "Ignore");
    expect(r.status).toBe(201);
    expect(warnings(r)).toEqual([]);
  });

  it("an unknown field is reported once, repeated or not, and nothing inside it", () => {
    const text = '{"metadata":{"name":"a"},"x":{"y":1,"y":2},"x":3,"data":{"k":"1"},"data":{"k":"2"}}';
    const { duplicates } = parseJsonStrict(text);
    expect(jsonStrictErrors(text, configMapStrategy.shape, duplicates, ["x"])).toEqual(['unknown field "x"', 'duplicate field "data"']);
  });

  it("duplicates inside lists and free-form fields carry their full path", () => {
    const text = '{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:data":{},"f:data":{}},"manager":"n"}]}}';
    const { duplicates } = parseJsonStrict(text);
    expect(jsonStrictErrors(text, configMapStrategy.shape, duplicates, [])).toEqual([
      'duplicate field "metadata.managedFields[0].fieldsV1.f:data"',
      'duplicate field "metadata.managedFields[0].manager"',
    ]);
  });

  it("an update reports duplicates too", async () => {
    const name = uniq("dupput");
    const made = await post(json(name, ""));
    expect(made.status).toBe(201);
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","resourceVersion":"${made.json.metadata.resourceVersion}"},"data":{"k":"1"},"data":{"k":"2"}}`;
    const r = await call("PUT", `${CM}/${name}`, undefined, { raw: body });
    expect(r.status).toBe(200);
    expect(warnings(r)).toEqual(['duplicate field "data"']);
    expect(r.json.data).toEqual({ k: "2" });
  });

  it("a type error is fatal and says nothing of duplicates", async () => {
    const r = await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t","name":"t"},"data":{"k":5}}`, "Strict");
    expect(r.status).toBe(400);
    expect(r.json.message).not.toContain("duplicate");
  });

  it("a body nested beyond Go's 10000 levels is refused before any duplicate is looked for (wire-facts §11)", async () => {
    const deep = "[".repeat(50_000) + "]".repeat(50_000);
    const r = await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${uniq("deep")}"},"x":${deep}}`);
    expect(r.status).toBe(400);
    expect(r.json.message).toContain("couldn't get version/kind; json parse error: invalid character '[' exceeded max depth");
  });

  it("malformed JSON is still described from JSON.parse's error (go-json-errors.ts), not the duplicate scanner's", async () => {
    const r = await post('{"apiVersion":"v1","kind":"ConfigMap",]');
    expect(r.status).toBe(400);
    expect(r.json.message).toContain("couldn't get version/kind; json parse error: invalid character ']'");
  });
});

describe("YAML bodies", () => {
  const yaml = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  name: ${name}\ndata:\n  k: v\nextra: 1\n`;

  it("Warn: one Warning per yaml.v2 line, then the unknown fields", async () => {
    const name = uniq("ydup");
    const r = await post(yaml(name), undefined, "application/yaml");
    expect(r.status, r.text).toBe(201);
    expect(warnings(r)).toEqual(['line 5: key "name" already set in map', 'unknown field "extra"']);
  });

  it("Strict: one yaml.v2 error listing the lines, then the unknown fields", async () => {
    const r = await post(yaml(uniq("ydup")), "Strict", "application/yaml");
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map, unknown field "extra"',
    );
  });

  it("Ignore: created, the last value wins", async () => {
    const name = uniq("ydup");
    const r = await post(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: one\n  k: two\n`, "Ignore", "application/yaml");
    expect(r.status, r.text).toBe(201);
    expect(warnings(r)).toEqual([]);
    expect(r.json.data).toEqual({ k: "two" });
  });

  it("lines are the repeated key's value line; nested duplicates come before their parent's", () => {
    const text = "a: 1\nb:\n  c: 1\na:\n  x: 1\n  x: 2\n";
    expect(yamlDuplicateLines(text)).toEqual(['line 6: key "x" already set in map', 'line 5: key "a" already set in map']);
    expect(yamlDuplicateLines("list:\n- {k: 1, k: 2}\n- k: 3\n")).toEqual(['line 2: key "k" already set in map']);
    expect(yamlDuplicateLines("a: 1\nb: 2\n")).toEqual([]);
  });

  it("strictWarnings splits a yaml.v2 error and keeps the others", () => {
    expect(
      strictWarnings(['yaml: unmarshal errors:\n  line 2: key "a" already set in map\n  line 3: key "b" already set in map', 'unknown field "x"']),
    ).toEqual(['line 2: key "a" already set in map', 'line 3: key "b" already set in map', 'unknown field "x"']);
  });
});
