/**
 * The multi-replica suite (suites/replicas.test.ts) can fail (issue #17): emulators on one etcd,
 * the target with a fault of the catalog (lib/faults/catalog/replicas.ts), its replica clean.
 * A target whose consistent lists lag behind storage (consistent-reads-lag) and whose updates
 * skip their resourceVersion precondition (update-ignores-resource-version) fails the
 * read-your-writes check of lists and the conflict check, and only those; one that numbers
 * versions on its own (resource-versions-offset) fails every check of the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { runViaCli, type SuiteRun } from "../support/run-suite.js";
import { skipReason } from "./support.js";

const TITLE = {
  watch: /property: writes spread over the target and its replicas reach a watcher/,
  list: /property: a consistent list through the target right after a replica acknowledged a write/,
  get: /a GET through the target of an object a replica just created or updated/,
  conflict: /an update through the target carrying the version from before a replica's update is 409/,
  exact: /a list through the target at exactly a version a replica's list answered/,
};

describe.skipIf(skipReason("replicas-faults"))("the multi-replica suite against a faulty target", () => {
  let etcd: EtcdServer;
  const running: RunningEmulator[] = [];
  const start = async (failpoints: string[] = []): Promise<RunningEmulator> => {
    const e = await startEmulator({ etcdServers: [etcd.url], namespaceContent: false, bookmarkIntervalMs: 1000, failpoints });
    running.push(e);
    return e;
  };

  beforeAll(async () => {
    etcd = await startEtcd();
  }, 30_000);

  afterAll(async () => {
    await Promise.all(running.map((e) => e.close()));
    await etcd?.dispose();
  });

  it("catches each fault, with what the target answered in the failure", { timeout: 120_000 }, async () => {
    const [clean, lagging, ownVersions] = await Promise.all([
      start(),
      start(["consistent-reads-lag", "update-ignores-resource-version"]),
      start(["resource-versions-offset"]),
    ]);
    const [lag, own] = (await Promise.all(
      [lagging, ownVersions].map((t) => runViaCli(["--target", t.url, "--replica", clean.url, "--suite", "replicas", "--seed", "11"])),
    )) as [SuiteRun, SuiteRun];
    const test = (run: SuiteRun, title: RegExp) => {
      const t = run.summary.tests.find((x) => title.test(x.name));
      if (!t) throw new Error(`no test ${title} in ${run.output}`);
      return t;
    };

    expect(lag.code, lag.output).toBe(1);
    expect(test(lag, TITLE.list).state).toBe("failed");
    expect(test(lag, TITLE.list).errors[0]).toMatch(/after write \d+ \((create|update|delete) \S+ through replica 1/);
    expect(test(lag, TITLE.conflict).state).toBe("failed");
    expect(test(lag, TITLE.conflict).errors[0]).toMatch(/^expected HTTP 409, but the request succeeded with \{"kind":"ConfigMap"/);
    for (const id of ["doc1.list-rv.most-recent", "doc1.put.stale-rv-409"]) expect(lag.status(id), id).toBe("failed");
    // Only the lists lag, and only updates skip their precondition: gets, watches and Exact lists still pass.
    for (const title of [TITLE.watch, TITLE.get, TITLE.exact]) expect(test(lag, title).state, String(title)).toBe("passed");

    expect(own.code, own.output).toBe(1);
    for (const title of Object.values(TITLE)) expect(test(own, title).state, String(title)).toBe("failed");
    // Whichever server's watcher the shrunk counterexample trips first, it names it and what it missed or saw wrong.
    expect(test(own, TITLE.watch).errors[0]).toMatch(
      /^property failed .*: the watcher on (the target|replica 1 \(http:\/\/127\.0\.0\.1:\d+\)) \(from \d+, after write 0\): .*(carries another version than|never reported|not newer than)/,
    );
    // The replica takes the target's version for another one: a version of one server is not one of the other.
    expect(test(own, TITLE.conflict).errors[0]).toMatch(/^PUT \S+ → 409 Conflict/);
    const get = /^replica 1 created \S+: the target's version: expected '(\d+)' to be '(\d+)'/.exec(test(own, TITLE.get).errors[0] ?? "");
    expect(get && Number(get[1]) - Number(get[2]), test(own, TITLE.get).errors[0]).toBe(1_000_000);
    for (const id of ["doc1.fields.rv-last-modified", "doc1.watch-rv.other-start-exact", "doc1.list-rv.exact"]) expect(own.status(id), id).toBe("failed");
  });
});
