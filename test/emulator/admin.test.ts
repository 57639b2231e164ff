/**
 * The test-only admin endpoint (compaction, clock) and what it drives: 410s for watches, exact
 * lists and continue tokens, continue-token lifetime, retention on the emulator clock; and the
 * `tollgate emulator` flags that configure all of it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEmulatorArgs } from "../../lib/cli/emulator.js";
import { UsageError } from "../../lib/cli/usage.js";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, eventBody, openWatch, type Reply, uniq } from "./support.js";

const ADMIN = "/tollgate/admin";
const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
const evs = (ns: string): string => `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
const names = (r: Reply): string[] => r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
/** The names of what the test made: the emulator publishes kube-root-ca.crt into each namespace at its own pace. */
const ownNames = (r: Reply): string[] => names(r).filter((n) => n !== "kube-root-ca.crt");
const decodeToken = (token: string): Record<string, unknown> => JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
const CONTINUE_EXPIRED_PREFIX = "The provided continue parameter is too old to display a consistent list result.";

/** Emulators started by a test, closed after it. */
const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

async function emulator(options: EmulatorOptions = {}): Promise<{ url: string; call: ReturnType<typeof client> }> {
  const emu = await startEmulator({ port: 0, ...options });
  started.push(emu);
  return { url: emu.url, call: client(emu.url) };
}

async function namespace(call: ReturnType<typeof client>, prefix: string): Promise<string> {
  const ns = uniq(prefix);
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  return ns;
}

function expectExpired(r: Reply): void {
  expect(r.status, r.text).toBe(410);
  expect(r.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 });
}

describe("admin endpoint switched off (the default)", () => {
  it("answers every /tollgate/admin path with the plain 404 of an unknown path", async () => {
    const { call } = await emulator();
    for (const [method, path] of [
      ["GET", ADMIN],
      ["POST", `${ADMIN}/compact`],
      ["POST", `${ADMIN}/clock`],
      ["GET", `${ADMIN}/anything`],
    ] as const) {
      const r = await call(method, path, method === "POST" ? { advanceSeconds: 1 } : undefined);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        details: {},
        code: 404,
      });
    }
  });
});

describe("admin endpoint switched on", () => {
  let call: ReturnType<typeof client>;
  let url: string;
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, admin: true });
    url = emu.url;
    call = client(url);
  });
  afterAll(async () => {
    await emu.close();
  });

  it("announces what it offers", async () => {
    const r = await call("GET", ADMIN);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.text).toBe('{"compact":true,"clock":true,"corrupt":true}\n');
  });

  it("compaction turns a configmap watch from before it into one ERROR 410 event, then the end of the stream", async () => {
    const ns = await namespace(call, "adm-cm");
    const old = (await call("POST", cms(ns), configMapBody("one"))).json.metadata.resourceVersion as string;
    await call("POST", cms(ns), configMapBody("two"));
    const compacted = await call("POST", `${ADMIN}/compact`, {});
    expect(compacted.status).toBe(200);
    const revision = compacted.json.compactedRevision as string;
    expect(revision).toMatch(/^[0-9]+$/);
    expect(Number(revision)).toBeGreaterThan(Number(old));

    const w = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=${old}`);
    expect(w.status).toBe(200);
    const ev = await w.next();
    expect(ev).toEqual({
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `too old resource version: ${old} (${revision})`,
        reason: "Expired",
        code: 410,
      },
    });
    await w.ended;
    expect(await w.next(100)).toBeUndefined();

    // The compacted revision itself is still readable and watchable.
    const atRevision = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=${revision}`);
    await call("POST", cms(ns), configMapBody("three"));
    expect((await atRevision.next())?.type).toBe("ADDED");
    atRevision.close();
  });

  it("compaction turns an events watch from before it into the etcd-path ERROR 410", async () => {
    const ns = await namespace(call, "adm-ev");
    const old = (await call("POST", evs(ns), eventBody(ns, "one"))).json.metadata.resourceVersion as string;
    await call("POST", evs(ns), eventBody(ns, "two"));
    await call("POST", `${ADMIN}/compact`, {});
    const w = await openWatch(url, `${evs(ns)}?watch=true&resourceVersion=${old}`);
    const ev = await w.next();
    expect(ev?.type).toBe("ERROR");
    expect(ev?.object).toMatchObject({ reason: "Expired", code: 410, message: "The resourceVersion for the provided watch is too old." });
    await w.ended;
  });

  it("compaction makes an Exact list of an older version 410", async () => {
    const ns = await namespace(call, "adm-exact");
    const old = (await call("POST", cms(ns), configMapBody("one"))).json.metadata.resourceVersion as string;
    await call("POST", cms(ns), configMapBody("two"));
    expect((await call("GET", `${cms(ns)}?resourceVersion=${old}&resourceVersionMatch=Exact`)).status).toBe(200);
    const revision = (await call("POST", `${ADMIN}/compact`, {})).json.compactedRevision as string;
    expect(Number(revision)).toBeGreaterThan(Number(old));
    // Both from etcd: a 1.35 list the watch cache cannot serve at its version falls back to etcd.
    const cm = await call("GET", `${cms(ns)}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    expectExpired(cm);
    expect(cm.json.message).toBe("The resourceVersion for the provided list is too old.");
    const ev = await call("GET", `${evs(ns)}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    expectExpired(ev);
    expect(ev.json.message).toBe("The resourceVersion for the provided list is too old.");
  });

  it("compaction expires an events continue token with a fresh rv -1 token that lists the rest", async () => {
    const ns = await namespace(call, "adm-cont");
    for (const n of ["a", "b", "c", "d", "e"]) await call("POST", evs(ns), eventBody(ns, n));
    const first = await call("GET", `${evs(ns)}?limit=2`);
    expect(names(first)).toEqual(["a", "b"]);
    await call("POST", evs(ns), eventBody(ns, "zz-late"));
    await call("POST", `${ADMIN}/compact`, {});

    const r = await call("GET", `${evs(ns)}?limit=2&continue=${first.json.metadata.continue}`);
    expectExpired(r);
    expect(r.json.message.startsWith(CONTINUE_EXPIRED_PREFIX)).toBe(true);
    const fresh = r.json.metadata.continue as string;
    expect(decodeToken(fresh)).toEqual({ v: "meta.k8s.io/v1", rv: -1, start: "b\u0000" });

    const rest = await call("GET", `${evs(ns)}?limit=100&continue=${fresh}`);
    expect(rest.status).toBe(200);
    expect(names(rest)).toEqual(["c", "d", "e", "zz-late"]);
    expect(Number(rest.json.metadata.resourceVersion)).toBeGreaterThan(Number(first.json.metadata.resourceVersion));
  });

  it("compaction expires a configmap continue token with a fresh rv -1 one too (a 1.35 list falls back to etcd)", async () => {
    const ns = await namespace(call, "adm-cont-cm");
    for (const n of ["a", "b", "c"]) await call("POST", cms(ns), configMapBody(n));
    const first = await call("GET", `${cms(ns)}?limit=1`);
    await call("POST", cms(ns), configMapBody("d"));
    await call("POST", `${ADMIN}/compact`, {});
    const r = await call("GET", `${cms(ns)}?limit=1&continue=${first.json.metadata.continue}`);
    expectExpired(r);
    expect(r.json.message.startsWith(CONTINUE_EXPIRED_PREFIX)).toBe(true);
    const fresh = r.json.metadata.continue as string;
    expect(decodeToken(fresh)).toEqual({ v: "meta.k8s.io/v1", rv: -1, start: "a\u0000" });
    const rest = await call("GET", `${cms(ns)}?limit=100&continue=${fresh}`);
    expect(ownNames(rest)).toEqual(["b", "c", "d"]);
  });

  it("compacts up to a given revision, and never back", async () => {
    const ns = await namespace(call, "adm-rev");
    const one = (await call("POST", cms(ns), configMapBody("one"))).json.metadata.resourceVersion as string;
    const two = (await call("POST", cms(ns), configMapBody("two"))).json.metadata.resourceVersion as string;
    await call("POST", cms(ns), configMapBody("three"));
    const r = await call("POST", `${ADMIN}/compact`, { revision: two });
    expect(r.json).toEqual({ compactedRevision: two });
    expectExpired(await call("GET", `${cms(ns)}?resourceVersion=${one}&resourceVersionMatch=Exact`));
    const atTwo = await call("GET", `${cms(ns)}?resourceVersion=${two}&resourceVersionMatch=Exact`);
    // kube-root-ca.crt, which the emulator's controller writes into every new namespace, may land among them.
    expect(names(atTwo).filter((n) => n !== "kube-root-ca.crt")).toEqual(["one", "two"]);
    // An older revision than the compacted one changes nothing.
    expect((await call("POST", `${ADMIN}/compact`, { revision: one })).json).toEqual({ compactedRevision: two });
  });

  it.each([
    ["compact", "[1]"],
    ["compact", "not json"],
    ["compact", '"text"'],
    ["compact", '{"revision":5}'],
    ["compact", '{"revision":"abc"}'],
    ["compact", '{"revision":"0"}'],
    ["compact", '{"revision":"99999999"}'],
    ["compact", '{"revision":"1","extra":true}'],
    ["clock", "{}"],
    ["clock", "null"],
    ["clock", '{"advanceSeconds":0}'],
    ["clock", '{"advanceSeconds":-5}'],
    ["clock", '{"advanceSeconds":"10"}'],
    ["clock", '{"advanceSeconds":null}'],
    ["clock", '{"advanceSeconds":1e400}'],
    ["clock", '{"advanceSeconds":1e12}'],
    ["clock", '{"advanceSeconds":1,"by":"me"}'],
    ["clock", "{"],
  ])("400 BadRequest for POST %s with %s", async (action, raw) => {
    const r = await call("POST", `${ADMIN}/${action}`, undefined, { raw });
    expect(r.status, r.text).toBe(400);
    expect(r.json).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
  });

  it("405 for other methods and 404 for other paths under /tollgate/admin", async () => {
    expect((await call("POST", ADMIN, {})).status).toBe(405);
    expect((await call("GET", `${ADMIN}/compact`)).status).toBe(405);
    expect((await call("PUT", `${ADMIN}/clock`, { advanceSeconds: 1 })).status).toBe(405);
    expect((await call("POST", `${ADMIN}/reset`, {})).status).toBe(404);
    // An empty body is the same as {}.
    expect((await call("POST", `${ADMIN}/compact`, undefined, { raw: "" })).status).toBe(200);
  });
});

describe("the emulator clock", () => {
  it("advances by the given seconds, and new objects are stamped with it", async () => {
    const { call } = await emulator({ admin: true });
    const before = Date.now();
    const r = await call("POST", `${ADMIN}/clock`, { advanceSeconds: 3600 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(["now"]);
    const now = Date.parse(r.json.now);
    expect(r.json.now).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(now).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(now).toBeLessThan(Date.now() + 3_600_000 + 1_000);
    const ns = await namespace(call, "clock");
    const created = (await call("POST", cms(ns), configMapBody("stamped"))).json;
    expect(Date.parse(created.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Math.floor(now / 1000) * 1000);
    // Fractions of a second count too.
    expect(Date.parse((await call("POST", `${ADMIN}/clock`, { advanceSeconds: 0.5 })).json.now)).toBeGreaterThanOrEqual(now + 500);
  });

  it("expires a continue token older than its lifetime with 410, though its snapshot is still there", async () => {
    const { call } = await emulator({ admin: true, retentionMs: 3_600_000, continueTokenLifetimeMs: 60_000 });
    const ns = await namespace(call, "lifetime");
    for (const n of ["a", "b", "c"]) {
      await call("POST", cms(ns), configMapBody(n));
      await call("POST", evs(ns), eventBody(ns, n));
    }
    const cmFirst = await call("GET", `${cms(ns)}?limit=1`);
    const evFirst = await call("GET", `${evs(ns)}?limit=1`);
    await call("POST", `${ADMIN}/clock`, { advanceSeconds: 30 });
    // Within the lifetime: still good.
    const cmSecond = await call("GET", `${cms(ns)}?limit=1&continue=${cmFirst.json.metadata.continue}`);
    expect(names(cmSecond)).toEqual(["b"]);
    await call("POST", `${ADMIN}/clock`, { advanceSeconds: 31 });

    const cm = await call("GET", `${cms(ns)}?limit=1&continue=${cmSecond.json.metadata.continue}`);
    // The second page's token was issued 31 s ago; the first page's 61 s ago.
    expect(cm.status).toBe(200);
    const cmExpired = await call("GET", `${cms(ns)}?limit=1&continue=${cmFirst.json.metadata.continue}`);
    expectExpired(cmExpired);
    expect(cmExpired.json.message.startsWith(CONTINUE_EXPIRED_PREFIX)).toBe(true);
    expect(ownNames(await call("GET", `${cms(ns)}?continue=${cmExpired.json.metadata.continue}`))).toEqual(["b", "c"]);

    const ev = await call("GET", `${evs(ns)}?limit=1&continue=${evFirst.json.metadata.continue}`);
    expectExpired(ev);
    expect(ev.json.message.startsWith(CONTINUE_EXPIRED_PREFIX)).toBe(true);
    const rest = await call("GET", `${evs(ns)}?continue=${ev.json.metadata.continue}`);
    expect(names(rest)).toEqual(["b", "c"]);
    // The history itself was kept: only the token aged.
    const exact = await call("GET", `${cms(ns)}?resourceVersion=${cmFirst.json.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(200);
  });

  it("gives the default token lifetime of 5 minutes", async () => {
    const { call } = await emulator({ admin: true, retentionMs: 3_600_000 });
    const ns = await namespace(call, "lifetime-default");
    for (const n of ["a", "b"]) await call("POST", cms(ns), configMapBody(n));
    const token = (await call("GET", `${cms(ns)}?limit=1`)).json.metadata.continue as string;
    await call("POST", `${ADMIN}/clock`, { advanceSeconds: 299 });
    expect((await call("GET", `${cms(ns)}?limit=1&continue=${token}`)).status).toBe(200);
    await call("POST", `${ADMIN}/clock`, { advanceSeconds: 2 });
    expectExpired(await call("GET", `${cms(ns)}?limit=1&continue=${token}`));
  });

  it("drops history older than the retention window", async () => {
    // No per-namespace ConfigMap written in the background: the oldest kept revision is checked exactly.
    const { url, call } = await emulator({ admin: true, retentionMs: 60_000, namespaceContent: false });
    const ns = await namespace(call, "retention");
    const old = (await call("POST", cms(ns), configMapBody("one"))).json.metadata.resourceVersion as string;
    const latest = (await call("POST", cms(ns), configMapBody("two"))).json.metadata.resourceVersion as string;
    expect((await call("GET", `${cms(ns)}?resourceVersion=${old}&resourceVersionMatch=Exact`)).status).toBe(200);
    await call("POST", `${ADMIN}/clock`, { advanceSeconds: 61 });

    expectExpired(await call("GET", `${cms(ns)}?resourceVersion=${old}&resourceVersionMatch=Exact`));
    const w = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=${old}`);
    const ev = await w.next();
    expect(ev?.type).toBe("ERROR");
    expect(ev?.object.message).toBe(`too old resource version: ${old} (${latest})`);
    await w.ended;
    // The newest revision is what a fresh list reports, and it is still there.
    expect((await call("GET", `${cms(ns)}?resourceVersion=${latest}&resourceVersionMatch=Exact`)).status).toBe(200);
  });
});

describe("retention on real time", () => {
  it("expires an events continue token whose snapshot fell out of the window, with a fresh token", async () => {
    const { call } = await emulator({ retentionMs: 50 });
    const ns = await namespace(call, "real-retention");
    for (const n of ["a", "b", "c"]) await call("POST", evs(ns), eventBody(ns, n));
    const first = await call("GET", `${evs(ns)}?limit=1`);
    await call("POST", evs(ns), eventBody(ns, "d"));
    await new Promise((r) => setTimeout(r, 150));
    const r = await call("GET", `${evs(ns)}?limit=1&continue=${first.json.metadata.continue}`);
    expectExpired(r);
    expect(decodeToken(r.json.metadata.continue)).toEqual({ v: "meta.k8s.io/v1", rv: -1, start: "a\u0000" });
  });
});

describe("continue token stamp", () => {
  const tamper = (token: string, change: (t: Record<string, unknown>) => void): string => {
    const t = decodeToken(token);
    change(t);
    return Buffer.from(JSON.stringify(t)).toString("base64url");
  };

  it("answers a token with an edited, missing or garbage stamp, or from another emulator, with 400", async () => {
    const { call } = await emulator();
    const other = await emulator();
    const ns = await namespace(call, "stamp");
    await namespace(other.call, "stamp-other");
    for (const n of ["a", "b", "c"]) await call("POST", cms(ns), configMapBody(n));
    const token = (await call("GET", `${cms(ns)}?limit=1`)).json.metadata.continue as string;
    const foreign = (await other.call("GET", "/api/v1/namespaces?limit=1")).json.metadata.continue as string;
    const bad = [
      tamper(token, (t) => (t["issued"] = (t["issued"] as number) + 3_600_000)),
      tamper(token, (t) => (t["rv"] = (t["rv"] as number) + 1)),
      tamper(token, (t) => (t["start"] = "c\u0000")),
      tamper(token, (t) => delete t["sig"]),
      tamper(token, (t) => delete t["issued"]),
      tamper(token, (t) => (t["issued"] = "yesterday")),
      tamper(token, (t) => (t["issued"] = -1)),
      tamper(token, (t) => (t["issued"] = 1e300)),
      tamper(token, (t) => (t["sig"] = 42)),
      tamper(token, (t) => (t["sig"] = "AAAAAAAAAAAAAAAAAAAAAA")),
      foreign,
    ];
    for (const t of bad) {
      const r = await call("GET", `${cms(ns)}?limit=1&continue=${t}`);
      expect(r.status, JSON.stringify(decodeToken(t))).toBe(400);
      expect(r.json.message).toMatch(/^invalid continue token: continue key is not valid/);
    }
    // A token in the real server's format, without a stamp, is still accepted.
    const plain = tamper(token, (t) => {
      delete t["issued"];
      delete t["sig"];
    });
    expect(names(await call("GET", `${cms(ns)}?limit=1&continue=${plain}`))).toEqual(["b"]);
  });
});

describe("tollgate emulator flags", () => {
  it("maps the flags to emulator options in milliseconds, leaving unset ones to the defaults", () => {
    expect(parseEmulatorArgs([])).toEqual({ host: "127.0.0.1", port: 8080, admin: false });
    expect(parseEmulatorArgs(["--admin", "--port", "0", "--bookmark-interval", "1", "--retention", "30.5", "--continue-lifetime", "0.25"])).toEqual({
      host: "127.0.0.1",
      port: 0,
      admin: true,
      bookmarkIntervalMs: 1000,
      retentionMs: 30_500,
      continueTokenLifetimeMs: 250,
    });
  });

  it.each([
    ["--bookmark-interval", "0"],
    ["--bookmark-interval", "soon"],
    ["--retention", "-1"],
    ["--retention", "1e3"],
    ["--retention", ""],
    ["--continue-lifetime", "0.0001"],
    ["--continue-lifetime", "99999999"],
    ["--admin=yes"],
  ])("refuses %s %s with a one-line usage error", (...args) => {
    let error: unknown;
    try {
      parseEmulatorArgs(args);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).not.toContain("\n");
  });
});
