/**
 * `tollgate run --replica` end to end (issue #17): against two emulators on one etcd the
 * multi-replica suite runs and passes (not "not applicable"; without --replica it is, which
 * gates-on-run.test.ts checks in a run it makes anyway); a --replica that is
 * another cluster (the in-memory emulator beside the etcd pair) is one line and exit 2, before any
 * test runs, and so is a --replica without a target.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { runViaCli, tollgate } from "../support/run-suite.js";
import { skipReason } from "./support.js";

const TESTS = 5;

describe.skipIf(skipReason("replicas-run"))("tollgate run --replica", () => {
  let etcd: EtcdServer;
  let a: RunningEmulator;
  let b: RunningEmulator;
  let alone: RunningEmulator;

  beforeAll(async () => {
    etcd = await startEtcd();
    [a, b, alone] = await Promise.all([
      startEmulator({ etcdServers: [etcd.url], namespaceContent: false, bookmarkIntervalMs: 1000 }),
      startEmulator({ etcdServers: [etcd.url], namespaceContent: false, bookmarkIntervalMs: 1000 }),
      startEmulator({ namespaceContent: false, bookmarkIntervalMs: 1000 }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), alone?.close()]);
    await etcd?.dispose();
  });

  it("runs the replica suite with writes through one server and reads through the other; another cluster is refused", {
    timeout: 90_000,
  }, async () => {
    const [pair, other, embedded] = await Promise.all([
      runViaCli(["--target", a.url, "--replica", b.url, "--suite", "replicas", "--seed", "7"]),
      // Comma-separated: b is of a's cluster, the in-memory emulator is not.
      tollgate(["run", "--target", a.url, "--replica", `${b.url},${alone.url}`, "--suite", "replicas", "--no-html"]),
      tollgate(["run", "--replica", b.url, "--suite", "replicas", "--no-html"]),
    ]);

    expect(pair.code, pair.output).toBe(0);
    expect(pair.summary.tests.map((t) => t.state)).toEqual(Array(TESTS).fill("passed"));
    expect(pair.summary.target.source).toBe(`--target ${a.url}, replicas ${b.url}`);
    expect(pair.output).toMatch(new RegExp(`yes replicas +1 replica\\(s\\) \\(${b.url}\\) answer namespace kube-system with the target's uid [0-9a-f-]{36}`));
    expect(pair.status("doc1.list-rv.most-recent")).toBe("passed");

    expect(other.code, other.stdout + other.stderr).toBe(2);
    expect(other.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(
          `^tollgate: --replica ${alone.url} is another cluster: namespace kube-system has uid [0-9a-f-]{36} there, [0-9a-f-]{36} on the target ${a.url}$`,
        ),
      ),
    ]);
    expect(other.stdout).toBe("");

    // The embedded emulator is a cluster of its own: a replica of it cannot be named.
    expect(embedded.code).toBe(2);
    expect(embedded.stderr.trim()).toBe(
      "tollgate: --replica names other API servers of the target's cluster: it goes with --target, --kubeconfig or --in-cluster (see tollgate run --help)",
    );
  });
});
