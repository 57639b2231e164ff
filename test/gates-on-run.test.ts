/**
 * The embedded run covers the 1.35 defaults of the alpha gates (off). This runs the suites of
 * both gated features through the real CLI against one emulator with CBORServingAndStorage and
 * AllowUnsafeMalformedObjectDeletion on, its admin endpoint (which can make an object corrupt)
 * and authentication (so the auth suite checks the second verb a forced delete needs): every
 * gated check applies, and the "off" checks do not. The Event round trip runs with them, so
 * Events also go through CBOR bodies, reads and watches.
 *
 * The run takes its credentials from a kubeconfig whose user is an exec plugin (moved here from
 * test/cli/credentials-run.test.ts: a run costs about 10 s of CPU): the plugin's token is the
 * admin token, so the suites see what --token gave them, and neither the token nor the client
 * key the plugin also returns may appear in the output or in any file of the report.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PKI, readPair } from "../fixtures/daemons/pki.js";
import { type RunningEmulator, startEmulator } from "../lib/emulator/index.js";
import { execCredential, fakePlugin } from "./support/fake-exec-plugin.js";
import { runViaCli } from "./support/run-suite.js";

const clientPair = readPair(PKI.client);
/** The key's lines of base64: any of them in the output would be a leak of (part of) the key. */
const keyLines = clientPair.key.split("\n").filter((l) => l && !l.startsWith("-----"));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

function expectNoSecret(where: string, text: string, secrets: readonly string[]): void {
  for (const s of secrets) expect(text.includes(s), `${where} holds a secret (${s.slice(0, 6)}…)`).toBe(false);
}

/** A kubeconfig for `server` whose user runs `plugin` for its credentials. */
function pluginKubeconfig(server: string, plugin: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "tollgate-kc-run-")), "config");
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
current-context: emu
clusters: [{ name: emu, cluster: { server: "${server}" } }]
users: [{ name: me, user: { exec: { command: "${plugin}", apiVersion: client.authentication.k8s.io/v1, interactiveMode: IfAvailable, provideClusterInfo: true } } }]
contexts: [{ name: emu, context: { cluster: emu, user: me } }]
`,
  );
  return path;
}

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, admin: true, auth: true, featureGates: { CBORServingAndStorage: true, AllowUnsafeMalformedObjectDeletion: true } });
});
afterAll(async () => {
  await emulator.close();
});

describe("the gated suites with the alpha gates on", () => {
  it("pass, with the CBOR and force-delete rules checked and their off checks not applicable, on an exec plugin's token that appears nowhere in the output or the report", {
    timeout: 150_000,
  }, async () => {
    const token = emulator.adminToken ?? "";
    expect(token).not.toBe("");
    const plugin = fakePlugin("get-token");
    plugin.respond({
      stdout: execCredential("client.authentication.k8s.io/v1", {
        token,
        clientCertificateData: clientPair.cert,
        clientKeyData: clientPair.key,
        expirationTimestamp: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    });
    const { code, output, summary, status, dir } = await runViaCli([
      "--kubeconfig",
      pluginKubeconfig(emulator.url, plugin.command),
      "--suite",
      "suites/encodings",
      "--suite",
      "suites/events/round-trip",
      "--suite",
      "suites/force-delete",
      "--suite",
      "suites/auth",
      // Without --replica the multi-replica suite does not apply, with the detection's reason (replicas-run.test.ts runs it with one).
      "--suite",
      "suites/replicas",
    ]);
    expect(code, output).toBe(0);
    expect(plugin.runs().length).toBeGreaterThan(0);
    expect(JSON.parse(plugin.runs()[0]?.info ?? "{}").spec.cluster.server).toBe(emulator.url);
    const secrets = [token, clientPair.key, ...keyLines];
    expectNoSecret("the output", output, secrets);
    const files = filesUnder(dir);
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) expectNoSecret(f, readFileSync(f, "latin1"), secrets);
    expect(summary.totals.tests.failed, output).toBe(0);
    expect(summary.capabilities["cbor"]).toMatchObject({ available: true });
    expect(summary.capabilities["force-delete"]).toMatchObject({ available: true });
    expect(summary.capabilities["replicas"]).toMatchObject({
      available: false,
      evidence: "no --replica given: the run knows no other API server of the target's cluster",
    });
    const replicaTests = summary.tests.filter((t) => t.file.includes("replicas"));
    expect(replicaTests.map((t) => t.state)).toEqual(Array(5).fill("not-applicable"));
    for (const id of [
      "doc1.media.cbor",
      "doc1.media.cbor-seq-watch",
      "doc1.media.apply-patch-cbor",
      "doc1.delete-options.force-needs-gate",
      "doc1.delete-options.force-excludes-others",
      "doc1.deletion.force-corrupt-removes",
      "doc1.deletion.force-normal-first",
      "doc1.deletion.force-skips-finalizers-preconditions",
      "doc1.deletion.force-readable-aborts",
      "doc1.versioning.cap-unsafe-force-delete",
      "doc1.auth.force-delete-verbs",
      "doc1.deletion.force-authz-both-verbs",
    ]) {
      expect(status(id), id).toBe("passed");
    }
    const roundTrips = summary.tests.filter((t) => t.file.includes("round-trip"));
    expect(
      roundTrips.map((t) => t.state),
      "the Event round trip ran too, its CBOR checks included",
    ).toEqual(["passed", "passed", "passed", "passed"]);
    // Only the gates' off checks do not apply (and the multi-replica suite, above).
    const notApplicable = summary.tests.filter((t) => t.state === "not-applicable" && !t.file.includes("replicas")).map((t) => t.name);
    expect(notApplicable, output).toHaveLength(2);
    expect(
      notApplicable.find((n) => /AllowUnsafeMalformedObjectDeletion off/.test(n)),
      notApplicable.join("; "),
    ).toBeDefined();
    expect(
      notApplicable.find((n) => /with CBOR off/.test(n)),
      notApplicable.join("; "),
    ).toBeDefined();
    expect(status("doc1.media.cbor-off-406")).toBe("not-applicable");
  });
});
