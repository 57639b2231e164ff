/**
 * /livez and /readyz on etcd (storage/etcd/etcd-health.ts, endpoints/health.ts): with etcd
 * stopped, the `etcd` and `etcd-readiness` checks fail after their timeouts, each answer a 500
 * listing the failing checks as kube-apiserver does, and all is ok again once etcd is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client } from "../emulator/support.js";
import { skipReason } from "./support.js";

const HEALTH_TIMEOUT_MS = 600;
const READY_TIMEOUT_MS = 400;

describe.skipIf(skipReason("health"))("health checks on etcd", () => {
  let etcd: EtcdServer;
  let emu: RunningEmulator;

  beforeAll(async () => {
    etcd = await startEtcd();
    emu = await startEmulator({
      etcdServers: [etcd.url],
      namespaceContent: false,
      etcdRequestTimeoutMs: 1500,
      etcdHealthcheckTimeoutMs: HEALTH_TIMEOUT_MS,
      etcdReadycheckTimeoutMs: READY_TIMEOUT_MS,
    });
  }, 30_000);
  afterAll(async () => {
    await emu?.close();
    await etcd?.dispose();
  });

  it("fail etcd and etcd-readiness while etcd is stopped, within their timeouts, and pass again once it is back", async () => {
    const call = client(emu.url);
    const ready = await call("GET", "/readyz?verbose");
    expect([ready.status, ready.text]).toEqual([
      200,
      "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n",
    ]);

    await etcd.stop();
    // Until a probe is sent after the stop, a check answers its last probe's result (rate limit).
    let live: Awaited<ReturnType<typeof call>> | undefined;
    let took = 0;
    for (const deadline = Date.now() + 5000; (live === undefined || live.status === 200) && Date.now() < deadline; ) {
      const began = Date.now();
      live = await call("GET", "/livez");
      took = Date.now() - began;
    }
    if (!live) throw new Error("unreachable");
    expect([live.status, live.text]).toEqual([500, "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\nlivez check failed\n"]);
    expect(live.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(live.headers["x-content-type-options"]).toBe("nosniff");
    // The failing probe ran out its whole timeout (etcd's client retries until then).
    expect(took).toBeGreaterThanOrEqual(HEALTH_TIMEOUT_MS - 50);
    expect(took).toBeLessThan(HEALTH_TIMEOUT_MS + 2000);

    // One probe per half timeout: of two checks at once, one probes, the other gets the last probe's error at once.
    const timed = async () => {
      const began = Date.now();
      const r = await call("GET", "/livez/etcd");
      return [r.status, r.text, Date.now() - began] as const;
    };
    const pair = (await Promise.all([timed(), timed()])).sort((x, y) => x[2] - y[2]);
    for (const [status, text] of pair)
      expect([status, text]).toEqual([500, "internal server error: error getting data from etcd: context deadline exceeded\n"]);
    expect(pair[0]?.[2]).toBeLessThan(HEALTH_TIMEOUT_MS / 2);
    expect(pair[1]?.[2]).toBeGreaterThanOrEqual(HEALTH_TIMEOUT_MS - 50);

    const notReady = await call("GET", "/readyz");
    expect([notReady.status, notReady.text]).toEqual([
      500,
      "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check failed\n",
    ]);
    const one = await call("GET", "/readyz/etcd-readiness");
    expect([one.status, one.text]).toEqual([500, "internal server error: error getting data from etcd: context deadline exceeded\n"]);
    // Excluded checks do not run: the rest passes.
    const excluded = await call("GET", "/readyz?exclude=etcd&exclude=etcd-readiness");
    expect([excluded.status, excluded.text]).toEqual([200, "ok"]);

    await etcd.restart();
    let back = await call("GET", "/readyz");
    for (const deadline = Date.now() + 8000; back.status !== 200 && Date.now() < deadline; ) back = await call("GET", "/readyz");
    expect([back.status, back.text]).toEqual([200, "ok"]);
    expect((await call("GET", "/livez/etcd")).text).toBe("ok");
  }, 25_000);
});
