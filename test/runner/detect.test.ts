/**
 * Capability detection (lib/runner/detect.ts) against the emulator in its configurations, and
 * through proxies that give answers no 1.35 server gives: each capability's ways to be on and
 * off, with the evidence, and each failure mode a violation of a named rule, never an
 * unavailable capability.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { startWireProxy, type WireRewrite } from "../../lib/faults/wire-proxy.js";
import { type ApiDetection, type DetectionOptions, detectApi } from "../../lib/runner/detect.js";

const running: RunningEmulator[] = [];
afterAll(async () => {
  await Promise.all(running.map((e) => e.close()));
});

async function emulator(opts: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const e = await startEmulator({ port: 0, ...opts });
  running.push(e);
  return e;
}

const settingsFor = (url: string, token?: string) => ({
  target: { url, credentials: token ? { token } : {}, source: "test" },
  runId: `detect-${Math.random().toString(36).slice(2, 8)}`,
  spec: { groupDomain: "k8s.io", vendor: "kubernetes" },
});

/** A quick detection: the bookmark probe waits 1.2 s at most, the rate-limit bursts are of 16. */
const detect = (url: string, token?: string, opts: DetectionOptions = {}): Promise<ApiDetection> =>
  detectApi(settingsFor(url, token), { bookmarkProbeMs: 1_200, burst: 16, ...opts });

async function through(e: RunningEmulator, mutant: Omit<WireRewrite, "name">, opts: DetectionOptions = {}): Promise<ApiDetection> {
  const proxy = await startWireProxy(e.url, { name: "wrong", ...mutant });
  try {
    return await detect(proxy.url, e.adminToken, opts);
  } finally {
    await proxy.close();
  }
}

const violated = (d: ApiDetection): string[] => d.violations.flatMap((v) => v.rules);

// Detections mostly wait (the bookmark probe, 1.2 s each) and each has a run id of its own: they
// run together. Only one uses the emulator with an in-flight limit.
describe.concurrent("detection on targets that answer as a 1.35 server may", () => {
  let plain: RunningEmulator;
  let full: RunningEmulator;
  beforeAll(async () => {
    plain = await emulator();
    full = await emulator({
      auth: true,
      admin: true,
      bookmarkIntervalMs: 500,
      maxRequestsInFlight: 1,
      featureGates: { CBORServingAndStorage: true, AllowUnsafeMalformedObjectDeletion: true },
    });
  });

  it("a plain emulator: no authentication, no shortcuts, the 1.35 gate defaults, no periodic bookmark soon, no rate limit; no violation", async () => {
    const d = await detect(plain.url);
    const on = Object.entries(d.capabilities)
      .filter(([, c]) => c.available)
      .map(([n]) => n)
      .sort();
    // Without --auth the emulator serves RBAC, ServiceAccounts and the review APIs all the same,
    // as a real server does (AlwaysAllow when authorization is off); the suites that test RBAC
    // also need authentication.
    expect(on).toEqual([
      "admission-webhooks",
      "custom-resources",
      "rbac",
      "response-compression",
      "subject-access-reviews",
      "token-reviews",
      "watch-list",
      "webhook-callback",
    ]);
    expect(d.capabilities.authentication.evidence).toMatch(/does not authenticate/);
    expect(d.capabilities["admin-compact"].evidence).toMatch(/GET \/tollgate\/admin answered 404/);
    expect(d.capabilities.cbor.evidence).toMatch(/406/);
    expect(d.capabilities["force-delete"].evidence).toMatch(/422 naming the gate/);
    expect(d.capabilities.bookmarks.evidence).toMatch(/no BOOKMARK within 1200 ms/);
    expect(d.bookmarkWaitMs).toBe(0);
    expect(d.violations).toEqual([]);
    expect(d.serverVersion).toMatch(/^v1\.35\./);
  });

  it("a fully equipped emulator: authentication, every shortcut, CBOR, force delete, frequent bookmarks, a rate limit", async () => {
    const d = await detect(full.url, full.adminToken);
    for (const name of ["authentication", "admin-compact", "admin-clock", "admin-corrupt", "cbor", "force-delete", "bookmarks", "rate-limit"] as const) {
      expect(d.capabilities[name], name).toMatchObject({ available: true });
    }
    expect(d.capabilities.authentication.evidence).toBe("a made-up bearer token got 401");
    expect(d.bookmarkWaitMs).toBe(1_200);
    expect(d.violations).toEqual([]);
  });

  it("--thorough makes bookmarks observable by waiting; declared gates win over detection", async () => {
    const d = await detect(plain.url, undefined, {
      thorough: { enabled: true, minutes: 11 },
      declaredGates: { WatchList: false, CBORServingAndStorage: true },
    });
    expect(d.capabilities.bookmarks).toMatchObject({ available: true, evidence: expect.stringMatching(/^--thorough waits/) });
    expect(d.bookmarkWaitMs).toBe(75_000);
    expect(d.capabilities.thorough.available).toBe(true);
    expect(d.capabilities["watch-list"]).toEqual({ available: false, evidence: "declared off (--feature-gates WatchList=false)" });
    expect(d.capabilities.cbor).toEqual({ available: true, evidence: "declared on (--feature-gates CBORServingAndStorage=true)" });
  });

  it("a target that ignores resourceVersionMatch is told apart from one that honours it", async () => {
    const d = await through(plain, { request: (m, p) => (m === "GET" ? p.replace(/([?&])resourceVersionMatch=[^&]*&?/, "$1") : p) });
    expect(d.capabilities["rvm-ignored"].available).toBe(true);
    expect((await detect(plain.url)).capabilities["rvm-ignored"].available).toBe(false);
  });

  it("an identity the target does not let create CustomResourceDefinitions: the capability is off, with the review's word", async () => {
    const authed = await emulator({ auth: true });
    const d = await through(authed, {
      response: (r) =>
        r.path.includes("selfsubjectaccessreviews") && r.body.includes("customresourcedefinitions")
          ? { ...r, body: r.body.replace('"allowed":true', '"allowed":false') }
          : r,
    });
    expect(d.capabilities["custom-resources"]).toEqual({
      available: false,
      evidence: "a SelfSubjectAccessReview says create apiextensions.k8s.io/customresourcedefinitions is not allowed",
    });
    expect(d.violations).toEqual([]);
  });
});

describe.concurrent("detection: answers no 1.35 server gives are violations of the rule the probe exercises", () => {
  let authed: RunningEmulator;
  let plain: RunningEmulator;
  beforeAll(async () => {
    authed = await emulator({ auth: true });
    plain = await emulator();
  });

  it("a made-up token accepted while requests without credentials are refused: authentication counts as on, and 401 rules fail", async () => {
    const d = await through(authed, {
      response: (r) => (r.code === 401 ? { ...r, code: 200, body: '{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}' } : r),
    });
    expect(d.capabilities.authentication.available).toBe(true);
    expect(violated(d)).toEqual(["doc1.auth.unauthenticated-401", "doc1.errors.401-unauthenticated"]);
  });

  it("a group listed in discovery whose list answers 404", async () => {
    const d = await through(plain, {
      response: (r) => (r.path.startsWith("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations") ? { ...r, code: 404, body: "{}" } : r),
    });
    expect(d.capabilities["admission-webhooks"].available).toBe(false);
    expect(violated(d)).toEqual(["doc1.paths.group-prefix", "doc1.verbs.list-collection"]);
  });

  it("a 5xx from /version, from the admin path, or to a forced delete", async () => {
    const d = await through(plain, {
      response: (r) =>
        r.path === "/version" || r.path.startsWith("/tollgate/admin") || r.method === "DELETE" ? { ...r, code: 500, body: '{"kind":"Status","code":500}' } : r,
    });
    expect(violated(d)).toEqual(["doc1.service.release-1-35", "doc1.paths.unknown-path-404", "doc1.delete-options.force-needs-gate"]);
    expect(d.capabilities["admin-compact"].available).toBe(false);
    expect(d.capabilities["force-delete"].available).toBe(false);
  });

  it("a CBOR request answered with JSON instead of 406", async () => {
    const d = await through(plain, { requestHeaders: (h) => (h.accept === "application/cbor" ? { ...h, accept: "application/json" } : h) });
    expect(d.capabilities.cbor.available).toBe(false);
    expect(violated(d)).toEqual(["doc1.media.rule1-none-supported-406", "doc1.errors.406-not-acceptable"]);
  });

  it("a watch frame that is not a watch event", async () => {
    const bookmarking = await emulator({ bookmarkIntervalMs: 300 });
    const d = await through(bookmarking, { watchLine: (l) => (l.includes('"type":"BOOKMARK"') ? '{"type":"BOOKMARK"' : l) });
    expect(d.capabilities.bookmarks.available).toBe(false);
    expect(violated(d)).toEqual(["doc1.watch-events.stream-documents", "doc1.watch-event.type-and-object"]);
  });
});
