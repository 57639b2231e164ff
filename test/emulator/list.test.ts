/** Lists: kinds, order, selectors, paging with continue tokens, deletecollection. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, eventBody, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
let other: string;
const cms = (n: string): string => `/api/v1/namespaces/${n}/configmaps`;
const names = (items: Array<{ metadata: { name: string } }>): string[] => items.map((i) => i.metadata.name);

beforeAll(async () => {
  // Exact lists and streams of this file's own writes: without the namespace controllers' content.
  emu = await startEmulator({ port: 0, namespaceContent: false });
  call = client(emu.url);
  ns = uniq("list");
  other = uniq("list-other");
  for (const n of [ns, other]) expect((await call("POST", "/api/v1/namespaces", { metadata: { name: n } })).status).toBe(201);
  // Created out of order: lists come back in key order.
  for (const [name, labels] of [
    ["c", { app: "web", tier: "back" }],
    ["a", { app: "web", tier: "front" }],
    ["e", { app: "db" }],
    ["b", { tier: "front" }],
    ["d", {}],
  ] as const) {
    expect((await call("POST", cms(ns), configMapBody(name, {}, labels))).status).toBe(201);
  }
  expect((await call("POST", cms(other), configMapBody("a"))).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

describe("list", () => {
  it("returns the list kind, the current resourceVersion and items in key order", async () => {
    const r = await call("GET", cms(ns));
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(["kind", "apiVersion", "metadata", "items"]);
    expect(r.json.kind).toBe("ConfigMapList");
    expect(r.json.apiVersion).toBe("v1");
    expect(names(r.json.items)).toEqual(["a", "b", "c", "d", "e"]);
    const latest = Math.max(...r.json.items.map((i: { metadata: { resourceVersion: string } }) => Number(i.metadata.resourceVersion)));
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThanOrEqual(latest);
  });

  it("always writes items, even when empty", async () => {
    const r = await call("GET", "/apis/events.k8s.io/v1/namespaces/kube-public/events");
    expect(r.json).toMatchObject({ kind: "EventList", apiVersion: "events.k8s.io/v1", items: [] });
  });

  it("lists a namespaced type across namespaces on the cluster path", async () => {
    const r = await call("GET", "/api/v1/configmaps");
    const keys = r.json.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toContain(`${other}/a`);
    expect(keys).toContain(`${ns}/e`);
  });

  it.each([
    ["app=web", ["a", "c"]],
    ["app==web,tier=front", ["a"]],
    ["app!=web", ["b", "d", "e"]],
    ["tier", ["a", "b", "c"]],
    ["!tier", ["d", "e"]],
    ["app in (web,db)", ["a", "c", "e"]],
    ["tier notin (front)", ["c", "d", "e"]],
  ])("labelSelector %s", async (selector, expected) => {
    const r = await call("GET", `${cms(ns)}?labelSelector=${encodeURIComponent(selector)}`);
    expect(r.status).toBe(200);
    expect(names(r.json.items)).toEqual(expected);
  });

  it("400 for a malformed labelSelector", async () => {
    const r = await call("GET", `${cms(ns)}?labelSelector=${encodeURIComponent("app in (web")}`);
    expect(r.status).toBe(400);
    expect(r.json.reason).toBe("BadRequest");
  });

  it("fieldSelector on metadata.name and metadata.namespace; 400 for other fields", async () => {
    expect(names((await call("GET", `${cms(ns)}?fieldSelector=metadata.name=b`)).json.items)).toEqual(["b"]);
    expect(names((await call("GET", `${cms(ns)}?fieldSelector=metadata.name!=b`)).json.items)).toEqual(["a", "c", "d", "e"]);
    const across = await call("GET", `/api/v1/configmaps?fieldSelector=metadata.namespace==${other}`);
    expect(names(across.json.items)).toEqual(["a"]);
    const bad = await call("GET", `${cms(ns)}?fieldSelector=data.k=v`);
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe("field label not supported: data.k");
  });

  it("Events accept their own field labels", async () => {
    await call("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, eventBody(ns, "ev-1", { reason: "Started" }));
    await call("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, eventBody(ns, "ev-2", { reason: "Stopped" }));
    const r = await call("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldSelector=reason=Stopped,regarding.kind=ConfigMap`);
    expect(names(r.json.items)).toEqual(["ev-2"]);
  });
});

describe("paging", () => {
  it("pages with limit and continue at the first page's resourceVersion", async () => {
    const first = await call("GET", `${cms(ns)}?limit=2`);
    expect(names(first.json.items)).toEqual(["a", "b"]);
    expect(first.json.metadata.remainingItemCount).toBe(3);
    const token: string = first.json.metadata.continue;
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const decoded = JSON.parse(Buffer.from(token, "base64url").toString());
    // The real server's three keys first, in its order; then the emulator's issue stamp.
    expect(Object.keys(decoded)).toEqual(["v", "rv", "start", "issued", "sig"]);
    expect(decoded).toMatchObject({ v: "meta.k8s.io/v1", rv: Number(first.json.metadata.resourceVersion), start: "b\u0000" });
    expect(decoded.issued).toBeGreaterThan(Date.now() - 60_000);
    expect(decoded.sig).toMatch(/^[A-Za-z0-9_-]{22}$/);

    // A write between pages does not show up: the pages read one snapshot.
    await call("POST", cms(ns), configMapBody("bb"));
    const second = await call("GET", `${cms(ns)}?limit=2&continue=${token}`);
    expect(names(second.json.items)).toEqual(["c", "d"]);
    expect(second.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
    const third = await call("GET", `${cms(ns)}?limit=2&continue=${second.json.metadata.continue}`);
    expect(names(third.json.items)).toEqual(["e"]);
    expect(third.json.metadata.continue).toBeUndefined();
    expect(third.json.metadata.remainingItemCount).toBeUndefined();
    await call("DELETE", `${cms(ns)}/bb`);
  });

  it("leaves remainingItemCount out when selectors are used; relative start keys span namespaces", async () => {
    const r = await call("GET", `/api/v1/configmaps?limit=1&labelSelector=app`);
    expect(r.json.metadata.remainingItemCount).toBeUndefined();
    const start = JSON.parse(Buffer.from(r.json.metadata.continue, "base64url").toString()).start as string;
    expect(start).toBe(`${ns}/a\u0000`);
  });

  it("400 for a garbage continue token or a continue with a resourceVersion", async () => {
    const bad = await call("GET", `${cms(ns)}?limit=2&continue=garbage!`);
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^invalid continue token/);
    const token = (await call("GET", `${cms(ns)}?limit=2`)).json.metadata.continue;
    const withRv = await call("GET", `${cms(ns)}?limit=2&continue=${token}&resourceVersion=5`);
    expect(withRv.status).toBe(400);
    expect(withRv.json.message).toBe("specifying resource version is not allowed when using continue");
  });
});

describe("resourceVersion on reads", () => {
  it("reads the exact past state with resourceVersionMatch=Exact", async () => {
    const target = uniq("exact");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    const first = (await call("POST", cms(target), configMapBody("one"))).json.metadata.resourceVersion;
    await call("POST", cms(target), configMapBody("two"));
    const r = await call("GET", `${cms(target)}?resourceVersion=${first}&resourceVersionMatch=Exact`);
    expect(r.json.metadata.resourceVersion).toBe(first);
    expect(names(r.json.items)).toEqual(["one"]);
  });

  it("422 on ListOptions for the invalid resourceVersionMatch combinations", async () => {
    for (const query of [
      "resourceVersionMatch=Exact",
      "resourceVersionMatch=Exact&resourceVersion=0",
      "resourceVersionMatch=Newest&resourceVersion=1",
      "sendInitialEvents=true",
    ]) {
      const r = await call("GET", `${cms(ns)}?${query}`);
      expect(r.status, query).toBe(422);
      expect(r.json.details).toMatchObject({ group: "meta.k8s.io", kind: "ListOptions" });
      expect(r.json.message).toMatch(/^ListOptions\.meta\.k8s\.io "" is invalid: /);
    }
  });

  it("504 with Retry-After for a version the store has not reached", async () => {
    for (const path of [`${cms(ns)}/a?resourceVersion=99999999`, `${cms(ns)}?resourceVersion=99999999`]) {
      const r = await call("GET", path);
      expect(r.status, path).toBe(504);
      expect(r.headers["retry-after"]).toBe("1");
      expect(r.json).toMatchObject({ reason: "Timeout", message: expect.stringMatching(/^Timeout: Too large resource version: 99999999, current: \d+$/) });
    }
  });
});

describe("deletecollection", () => {
  it("deletes the matching objects of one namespace and returns them as a list", async () => {
    const target = uniq("dc");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    for (const n of ["x1", "x2", "y1"]) await call("POST", cms(target), configMapBody(n, {}, { group: n[0] ?? "" }));
    const r = await call("DELETE", `${cms(target)}?labelSelector=group=x`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe("ConfigMapList");
    expect(names(r.json.items)).toEqual(["x1", "x2"]);
    expect(names((await call("GET", cms(target))).json.items)).toEqual(["y1"]);
    expect((await call("GET", `${cms(other)}/a`)).status).toBe(200);
  });
});
