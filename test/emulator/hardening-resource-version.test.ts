/**
 * Issue #15, item 7 (resourceVersion): a version is a decimal uint64 (wire-facts §11). One that is
 * not (above 2^64 - 1, negative, not a number) is a 400 on a list, a 500 without a reason on a
 * watch, and on a get a 500 from the watch cache or a 400 for events; a valid one the store has not
 * reached is the 504 with its digits exact, beyond 2^53 too (it used to be rounded through Number).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { InvalidResourceVersion } from "../../lib/emulator/storage/read-errors.js";
import { parseResourceVersion } from "../../lib/emulator/storage/reads.js";
import { client, configMapBody, eventBody, openWatch, type Reply, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
const ns = uniq("rv");
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const events = `/api/v1/namespaces/${ns}/events`;
const eventsV1 = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;

beforeAll(async () => {
  // No namespace content: the 504's "current" and the one-object list must see this file's writes only.
  emu = await startEmulator({ port: 0, namespaceContent: false });
  call = client(emu.url);
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  expect((await call("POST", cms, configMapBody("one"))).status).toBe(201);
  expect((await call("POST", eventsV1, eventBody(ns, "ev"))).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

const OVER = "18446744073709551616"; // 2^64
const MAX = "18446744073709551615"; // 2^64 - 1
const detail = (v: string, why: string): string => `resourceVersion: Invalid value: "${v}": strconv.ParseUint: parsing "${v}": ${why}`;
const status = (r: Reply) => ({ code: r.status, reason: r.json?.reason, message: r.json?.message });

describe("a resourceVersion that is no uint64", () => {
  it.each([
    [OVER, "value out of range"],
    ["99999999999999999999999999", "value out of range"],
    ["-1", "invalid syntax"],
    ["+1", "invalid syntax"],
    ["1e3", "invalid syntax"],
    ["abc", "invalid syntax"],
  ])("%s: list 400, watch 500 without a reason, get 500 (watch cache) or 400 (events)", async (rv, why) => {
    const list = await call("GET", `${cms}?resourceVersion=${rv.replace("+", "%2B")}`);
    expect(status(list)).toEqual({ code: 400, reason: "BadRequest", message: `invalid resource version: ${detail(rv, why)}` });
    const enc = encodeURIComponent(rv);
    const watch = await call("GET", `${cms}?watch=true&resourceVersion=${enc}`);
    expect(status(watch)).toEqual({ code: 500, reason: undefined, message: detail(rv, why) });
    expect(watch.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: detail(rv, why), code: 500 });
    const get = await call("GET", `${cms}/one?resourceVersion=${enc}`);
    expect(status(get)).toEqual({ code: 500, reason: undefined, message: detail(rv, why) });
    for (const path of [`${events}/ev`, `${eventsV1}/ev`]) {
      const ev = await call("GET", `${path}?resourceVersion=${enc}`);
      expect(status(ev)).toEqual({ code: 400, reason: "BadRequest", message: `invalid resource version: ${detail(rv, why)}` });
    }
    expect(status(await call("GET", `${events}?resourceVersion=${enc}`))).toMatchObject({ code: 400, message: `invalid resource version: ${detail(rv, why)}` });
    expect(status(await call("GET", `${events}?watch=1&resourceVersion=${enc}`))).toEqual({ code: 500, reason: undefined, message: detail(rv, why) });
  });

  it('is not parsed next to a continue token: any version but "" and "0" is refused as such', async () => {
    const first = await call("GET", `${cms}?limit=1`);
    expect(first.status).toBe(200);
    // One object: no token; make one with two.
    expect((await call("POST", cms, configMapBody("two"))).status).toBe(201);
    const page = await call("GET", `${cms}?limit=1`);
    const token = encodeURIComponent(page.json.metadata.continue);
    const r = await call("GET", `${cms}?limit=1&continue=${token}&resourceVersion=${OVER}`);
    expect(status(r)).toEqual({ code: 400, reason: "BadRequest", message: "specifying resource version is not allowed when using continue" });
    expect((await call("GET", `${cms}?limit=1&continue=${token}&resourceVersion=0`)).status).toBe(200);
    // The token is read first: a bad one is its own 400, whatever the version.
    const bad = await call("GET", `${cms}?limit=1&continue=garbage!&resourceVersion=5`);
    expect([bad.status, bad.json.message]).toEqual([400, expect.stringMatching(/^invalid continue token: continue key is not valid: /)]);
  });
});

describe("a valid version beyond the store's", () => {
  const tooLarge = (rv: string, current: number) => ({
    code: 504,
    reason: "Timeout",
    message: `Timeout: Too large resource version: ${rv}, current: ${current}`,
  });

  it.each([MAX, "9007199254740993", "9007199254740992"])("%s: the 504 names it exactly on list and get", async (rv) => {
    const current = Number((await call("GET", cms)).json.metadata.resourceVersion);
    expect(status(await call("GET", `${cms}?resourceVersion=${rv}`))).toEqual(tooLarge(rv, current));
    expect(status(await call("GET", `${cms}?resourceVersion=${rv}&resourceVersionMatch=Exact`))).toEqual(tooLarge(rv, current));
    expect(status(await call("GET", `${cms}/one?resourceVersion=${rv}`))).toEqual(tooLarge(rv, current));
  });

  it("opens a watch that waits for it (no error)", async () => {
    const w = await openWatch(emu.url, `${cms}?watch=true&resourceVersion=${MAX}`);
    try {
      expect(w.status).toBe(200);
      expect(await w.next(300)).toBeUndefined();
    } finally {
      w.close();
    }
  });
});

describe("parseResourceVersion (the storage versioner)", () => {
  it('reads a decimal uint64 exactly, "", "0" and "00" as any state', () => {
    expect(parseResourceVersion("")).toBeUndefined();
    expect(parseResourceVersion("0")).toBeUndefined();
    expect(parseResourceVersion("00")).toBeUndefined();
    expect(parseResourceVersion("007")).toBe(7);
    expect(parseResourceVersion("9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseResourceVersion("9007199254740993")).toBe(9007199254740993n);
    expect(parseResourceVersion(MAX)).toBe(2n ** 64n - 1n);
  });

  it.each([
    [OVER, "value out of range"],
    // Go's verdict is the first problem from the left: an overflow before a bad character, and the reverse.
    [`${OVER}x`, "value out of range"],
    ["1844674407370955161x6", "invalid syntax"],
    [" 1", "invalid syntax"],
    ["1_000", "invalid syntax"],
    ["١", "invalid syntax"],
  ])("refuses %j: %s", (rv, why) => {
    let error: unknown;
    try {
      parseResourceVersion(rv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidResourceVersion);
    expect(error).toMatchObject({ value: rv, reason: why });
  });
});
