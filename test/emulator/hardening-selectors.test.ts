/**
 * Issue #15, item 1: one field-selector grammar for the list and for the authorizer. A
 * ServiceAccount allowed only the ConfigMap `allowed` used to list and watch the whole namespace
 * with `metadata.namespace!=x\,metadata.name=allowed`: the authorizer split on every comma and
 * saw `metadata.name=allowed`, the list read one `!=` term whose value held an unescaped `=`.
 * The server's grammar (apimachinery pkg/fields/selector.go) refuses that value; its request
 * resolver (apiserver pkg/endpoints/request/requestinfo.go) then sets no name, so RBAC says 403.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { escapeFieldValue, parseFieldRequirements, parseFieldSelector, requiredValue } from "../../lib/emulator/apimachinery/field-selector.js";
import { decodeListQuery } from "../../lib/emulator/apimachinery/list-query.js";
import { requestAttributes } from "../../lib/emulator/auth/request-attributes.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, openWatch, uniq } from "./support.js";

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const BYPASS = "metadata.namespace!=x\\,metadata.name=allowed";
const q = (s: string): string => encodeURIComponent(s);

/** An emulator with --auth, a namespace with ConfigMaps `allowed` and `secret`, and a robot allowed `verbs` on `allowed` only. */
async function setup(verbs: string[]) {
  const emu = await startEmulator({ port: 0, auth: true });
  started.push(emu);
  const raw = client(emu.url);
  const as = (token: string) => (method: string, path: string, body?: unknown) => raw(method, path, body, { headers: { authorization: `Bearer ${token}` } });
  const admin = as(emu.adminToken ?? "");
  const ns = uniq("sel");
  expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  expect((await admin("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("allowed", { a: "1" }))).status).toBe(201);
  expect((await admin("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("secret", { password: "hunter2" }))).status).toBe(201);
  expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "robot" } })).status).toBe(201);
  const role = { metadata: { name: "robot" }, rules: [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["allowed"], verbs }] };
  expect((await admin("POST", `${RBAC}/namespaces/${ns}/roles`, role)).status).toBe(201);
  const binding = {
    metadata: { name: "robot" },
    subjects: [{ kind: "ServiceAccount", name: "robot", namespace: ns }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "robot" },
  };
  expect((await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, binding)).status).toBe(201);
  const tr = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { spec: {} });
  expect(tr.status, tr.text).toBe(201);
  const token = tr.json.status.token as string;
  return { emu, admin, robot: as(token), token, ns, base: `/api/v1/namespaces/${ns}/configmaps` };
}

/** The 403 of RBAC, which names the object when the request has a name. */
const forbidden = (ns: string, verb: string, name = "") => ({
  kind: "Status",
  code: 403,
  reason: "Forbidden",
  message: `configmaps${name ? ` "${name}"` : ""} is forbidden: User "system:serviceaccount:${ns}:robot" cannot ${verb} resource "configmaps" in API group "" in the namespace "${ns}"`,
});

describe("a field selector cannot widen a name-restricted grant", () => {
  it("refuses the escaped-comma bypass for list and watch (403), which a full reader gets as a 400", async () => {
    const { admin, robot, ns, base } = await setup(["list", "watch"]);
    const list = await robot("GET", `${base}?fieldSelector=${q(BYPASS)}`);
    expect([list.status, list.json]).toEqual([403, expect.objectContaining(forbidden(ns, "list"))]);
    const watch = await robot("GET", `${base}?watch=true&fieldSelector=${q(BYPASS)}`);
    expect([watch.status, watch.json]).toEqual([403, expect.objectContaining(forbidden(ns, "watch"))]);
    // The server's grammar refuses the value's unescaped `=` (Go prints the rune as its code).
    const bad = await admin("GET", `${base}?fieldSelector=${q(BYPASS)}`);
    expect([bad.status, bad.json.reason, bad.json.message]).toEqual([400, "BadRequest", "invalid field selector: unescaped character in value: 61"]);
  });

  it("still lists and watches the allowed name, and only it", async () => {
    const { robot, emu, token, base } = await setup(["list", "watch"]);
    for (const selector of ["metadata.name=allowed", "metadata.name==allowed", "metadata.name=allowed,metadata.namespace!=x"]) {
      const list = await robot("GET", `${base}?fieldSelector=${q(selector)}`);
      expect(list.status, `${selector}: ${list.text}`).toBe(200);
      expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["allowed"]);
    }
    const w = await openWatch(emu.url, `${base}?watch=true&fieldSelector=${q("metadata.name=allowed")}`, { authorization: `Bearer ${token}` });
    try {
      expect(w.status).toBe(200);
      const first = await w.next(10_000);
      expect([first?.type, first?.object.metadata.name]).toEqual(["ADDED", "allowed"]);
      expect(await w.next(300)).toBeUndefined();
    } finally {
      w.close();
    }
  });

  it("gives no name for selectors that do not pin exactly that name", async () => {
    const { robot, ns, base } = await setup(["list", "watch"]);
    for (const [selector, name] of [
      ["metadata.name!=allowed", ""],
      ["metadata.name=allowed\\,x", "allowed,x"],
      ["metadata.name=allowed\\=", "allowed="],
      ["metadata.name=other", "other"],
      // A field name is taken as written: " metadata.name" is another field.
      [" metadata.name=allowed", ""],
      ["metadata.name=allowed\\", ""],
      ["metadata.name=allowed\\n", ""],
    ]) {
      const list = await robot("GET", `${base}?fieldSelector=${q(selector as string)}`);
      expect([selector, list.status, list.json.message]).toEqual([selector, 403, forbidden(ns, "list", name).message]);
    }
  });

  it("reads list or watch from the same decoding as the handler: `watch=yes` is a watch, a bad query sets no name", async () => {
    const { admin, robot, ns, base } = await setup(["list"]);
    // A real server's query boolean: anything but "0" and "false" is true.
    const yes = await robot("GET", `${base}?watch=yes&fieldSelector=${q("metadata.name=allowed")}`);
    expect([yes.status, yes.json.message]).toEqual([403, forbidden(ns, "watch", "allowed").message]);
    // The decoding fails on the limit, so the selector's name is not taken: a plain list.
    const badLimit = await robot("GET", `${base}?limit=abc&fieldSelector=${q("metadata.name=allowed")}`);
    expect([badLimit.status, badLimit.json.message]).toEqual([403, forbidden(ns, "list").message]);
    const asAdmin = await admin("GET", `${base}?limit=abc`);
    expect([asAdmin.status, asAdmin.json.message]).toEqual([400, 'strconv.ParseInt: parsing "abc": invalid syntax']);
    const huge = await admin("GET", `${base}?limit=99999999999999999999`);
    expect([huge.status, huge.json.message]).toEqual([400, 'strconv.ParseInt: parsing "99999999999999999999": value out of range']);
    expect((await robot("GET", `${base}?fieldSelector=${q("metadata.name=allowed")}&watch=false`)).status).toBe(200);
    // A GET of one object decodes only its resourceVersion: the list's parameters cannot fail it.
    const one = await admin("GET", `${base}/allowed?fieldSelector=${q(BYPASS)}&limit=abc&watch=yes`);
    expect([one.status, one.json.metadata?.name]).toEqual([200, "allowed"]);
  });
});

describe("field selector grammar (apimachinery pkg/fields/selector.go)", () => {
  const reqs = (s: string) => parseFieldRequirements(s).map((r) => `${r.field}${r.operator}${r.value}`);

  it("splits on unescaped commas, sorts the terms, and takes the first operator anywhere as the split", () => {
    expect(reqs("b=1,a!=2,c==3")).toEqual(["a!=2", "b=1", "c=3"]);
    expect(reqs("a=x\\,y\\=z\\\\")).toEqual(["a=x,y=z\\"]);
    expect(reqs(",a=1,,")).toEqual(["a=1"]);
    expect(reqs("")).toEqual([]);
    expect(reqs("a==\\=")).toEqual(["a=="]);
    // The field name has no escapes: `\` before the operator stays in it.
    expect(reqs("a\\=b")).toEqual(["a\\=b"]);
  });

  it.each([
    ["a=b=c", "invalid field selector: unescaped character in value: 61"],
    ["a===", "invalid field selector: unescaped character in value: 61"],
    ["a!=x\\,b=c", "invalid field selector: unescaped character in value: 61"],
    ["a=x\\n", "invalid field selector: invalid escape sequence: \\n"],
    ["a=x\\😀", "invalid field selector: invalid escape sequence: \\😀"],
    ["a=x\\", "invalid field selector: invalid escape sequence: \\"],
    ["a", "invalid selector: 'a'; can't understand 'a'"],
    ["b=1,a", "invalid selector: 'b=1,a'; can't understand 'a'"],
  ])("refuses %j: %s", (selector, message) => {
    expect(() => parseFieldRequirements(selector)).toThrow(message);
  });

  it("checks labels only once the whole selector parsed", () => {
    expect(() => parseFieldSelector("spec.x=1,metadata.name=a=b", ["metadata.name"])).toThrow("unescaped character in value: 61");
    expect(() => parseFieldSelector("spec.x=1,metadata.name=a", ["metadata.name"])).toThrow("field label not supported: spec.x");
  });

  it("requires the first equality on the field, in sorted order, as RequiresExactMatch", () => {
    expect(requiredValue(parseFieldRequirements("metadata.name=b,metadata.name=a"), "metadata.name")).toBe("a");
    expect(requiredValue(parseFieldRequirements("metadata.name!=a"), "metadata.name")).toBeUndefined();
    expect(requiredValue(parseFieldRequirements("metadata.namespace!=x\\,metadata.name\\=allowed"), "metadata.name")).toBeUndefined();
  });

  it("parses escaped values back to the same requirements (property)", () => {
    const value = fc.string({ unit: fc.oneof(fc.constantFrom(",", "=", "\\", "!", "==", "!="), fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 })) });
    const field = fc.stringMatching(/^[a-z][a-z.]{0,10}$/);
    const requirement = fc.record({ field, operator: fc.constantFrom("=", "==", "!="), value });
    fc.assert(
      fc.property(fc.array(requirement, { minLength: 1, maxLength: 5 }), (rs) => {
        const selector = rs.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(",");
        const key = (r: { field: string; operator: string; value: string }) => JSON.stringify([r.field, r.operator === "!=" ? "!=" : "=", r.value]);
        expect(parseFieldRequirements(selector).map(key).sort()).toEqual(rs.map(key).sort());
      }),
      { numRuns: 500 },
    );
  });

  it("authorizes a name only from a selector the decoding accepts", () => {
    const attrs = (query: string) => requestAttributes("GET", new URL(`http://x/api/v1/namespaces/n/configmaps?${query}`));
    expect(attrs(`fieldSelector=${q(BYPASS)}`)).toMatchObject({ verb: "list", name: "" });
    expect(attrs(`watch=1&fieldSelector=${q(BYPASS)}`)).toMatchObject({ verb: "watch", name: "" });
    expect(attrs(`watch=&fieldSelector=${q("metadata.name=a")}`)).toMatchObject({ verb: "watch", name: "a" });
    expect(attrs(`watch=FALSE&fieldSelector=${q("metadata.name=a")}`)).toMatchObject({ verb: "list", name: "a" });
    expect(attrs(`fieldSelector=${q("metadata.name=..")}`)).toMatchObject({ verb: "list", name: "" });
    expect(attrs(`fieldSelector=${q("metadata.name=a%b")}`)).toMatchObject({ verb: "list", name: "" });
    expect(decodeListQuery(new URLSearchParams("watch=no&allowWatchBookmarks=&sendInitialEvents=0"))).toMatchObject({
      watch: true,
      allowWatchBookmarks: true,
      sendInitialEvents: false,
    });
  });
});
