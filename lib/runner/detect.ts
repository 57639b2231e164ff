/**
 * Capability detection: before any test, ask the target once what it offers and keep the
 * evidence (lib/runner/capabilities.ts). Tests declare what they need; this decides whether it
 * is there. An answer that no 1.35 server gives (an invalid token accepted while
 * authentication is on, a group in discovery whose list is 404, a 5xx) is not a missing
 * capability: it is recorded as a violation of the rule the probe exercises, and the run fails
 * on it like on a failed test.
 *
 * Detection touches only what it creates: one labelled namespace of the run, deleted at the
 * end, and objects inside it.
 */
import { randomBytes } from "node:crypto";
import { detectAdmin } from "../harness/admin.js";
import { ApiClient, type ApiResponse, type RequestOptions } from "../harness/client.js";
import { asIdentity } from "../harness/credentials/identity.js";
import type { WatchEvent } from "../harness/objects.js";
import { confirmReplicas } from "../harness/replicas.js";
import { resourcePath } from "../harness/resources.js";
import { type RunSettings, Session } from "../harness/session.js";
import type { Target } from "../harness/target.js";
import { WatchProtocolError, type WatchStream } from "../harness/watch.js";
import type { RuleId } from "../spec/catalog.js";
import { type API_CAPABILITIES, type Capabilities, type CapabilityState, GATE_CAPABILITIES, type GateName } from "./capabilities.js";

export interface Violation {
  /** The rules the probe exercises; the run reports each as failed. */
  rules: RuleId[];
  /** Which probe saw it. */
  probe: string;
  message: string;
}

export interface DetectionOptions {
  /** Gates the operator declared (`tollgate run --feature-gates`); they win over detection and defaults. */
  declaredGates?: Partial<Record<GateName, boolean>>;
  thorough?: { enabled: boolean; minutes: number };
  /** How long to wait for a periodic bookmark (a frequent cadence is one seen within this). */
  bookmarkProbeMs?: number;
  /** Requests in the rate-limit burst. */
  burst?: number;
  /** Other API servers of the target's cluster (`--replica`); one of another cluster throws ReplicaError. */
  replicas?: readonly Target[];
}

export type ApiCapabilities = Record<keyof typeof API_CAPABILITIES, CapabilityState>;

export interface ApiDetection {
  serverVersion?: string;
  /** How long a test waits for a periodic bookmark: the probe's window where one came in it, a minute and more with --thorough, else 0. */
  bookmarkWaitMs: number;
  capabilities: ApiCapabilities;
  violations: Violation[];
  durationMs: number;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
const FORCE = "ignoreStoreReadErrorWithClusterBreakingPotential";
const yes = (evidence: string): CapabilityState => ({ available: true, evidence });
const no = (evidence: string): CapabilityState => ({ available: false, evidence });
const brief = (r: ApiResponse): string => `${r.code}${r.text ? ` ${JSON.stringify(r.text.slice(0, 120))}` : ""}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface DiscoveredResource {
  name: string;
  verbs?: string[];
}

/** Asks with up to three retries on 429 (a rate-limited target still gets detected), honouring a short Retry-After. */
async function ask(client: ApiClient, method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
  let res = await client.raw(method, path, opts);
  for (let i = 0; i < 3 && res.code === 429; i++) {
    await sleep(Math.min(Number(res.headers["retry-after"] ?? "1") || 1, 2) * 1000);
    res = await client.raw(method, path, opts);
  }
  return res;
}

export async function detectApi(settings: RunSettings, options: DetectionOptions = {}): Promise<ApiDetection> {
  const started = Date.now();
  const session = new Session(settings, "detection");
  const client = session.client;
  const types = session.types;
  const violations: Violation[] = [];
  const violate = (probe: string, rules: RuleId[], message: string): void => void violations.push({ probe, rules, message });
  const caps: Partial<ApiCapabilities> = {};

  try {
    // ── version ──────────────────────────────────────────────────────────────────────────
    let serverVersion: string | undefined;
    const version = await ask(client, "GET", "/version");
    if (version.code >= 500) violate("version", ["doc1.service.release-1-35"], `GET /version answered ${brief(version)}`);
    else if (version.code === 200) serverVersion = (version.json as { gitVersion?: unknown } | undefined)?.gitVersion?.toString();

    // ── discovery ────────────────────────────────────────────────────────────────────────
    const core = await ask(client, "GET", "/api/v1");
    if (core.code !== 200) violate("discovery", ["doc1.paths.core-prefix"], `GET /api/v1 answered ${brief(core)}`);
    const coreResources = ((core.json as { resources?: DiscoveredResource[] } | undefined)?.resources ?? []).map((r) => r.name);
    const groupsRes = await ask(client, "GET", "/apis");
    if (groupsRes.code !== 200) violate("discovery", ["doc1.paths.group-prefix"], `GET /apis answered ${brief(groupsRes)}`);
    const groupVersions = new Set(
      ((groupsRes.json as { groups?: { versions?: { groupVersion?: string }[] }[] } | undefined)?.groups ?? []).flatMap((g) =>
        (g.versions ?? []).map((v) => v.groupVersion ?? ""),
      ),
    );

    // ── authentication ───────────────────────────────────────────────────────────────────
    caps.authentication = await detectAuthentication(settings, violate);

    // ── the admin endpoint (tollgate's emulator with --admin) ────────────────────────────
    const admin = await detectAdmin(client);
    if (admin.kind === "offered") {
      caps["admin-compact"] = admin.compact ? yes("GET /tollgate/admin offers compact") : no("GET /tollgate/admin does not offer compact");
      caps["admin-clock"] = admin.clock ? yes("GET /tollgate/admin offers clock") : no("GET /tollgate/admin does not offer clock");
      caps["admin-corrupt"] = admin.corrupt ? yes("GET /tollgate/admin offers corrupt") : no("GET /tollgate/admin does not offer corrupt");
    } else {
      if (admin.kind === "wrong")
        violate("admin endpoint", ["doc1.paths.unknown-path-404"], `GET /tollgate/admin (no such resource on a real server) answered ${admin.answer}`);
      const why =
        admin.kind === "absent"
          ? `GET /tollgate/admin answered ${admin.answer}: the target offers no test-only shortcuts (as a real cluster)`
          : "the admin endpoint answered wrongly";
      caps["admin-compact"] = no(why);
      caps["admin-clock"] = no(why);
      caps["admin-corrupt"] = no(why);
    }

    // ── served groups, and whether the run's identity may create what tests create ───────
    const may = async (
      verb: string,
      group: string,
      resource: string,
      namespace?: string,
      subresource?: string,
    ): Promise<{ allowed: boolean; evidence: string }> => {
      if (!caps.authentication?.available || !groupVersions.has("authorization.k8s.io/v1")) return { allowed: true, evidence: "no authorization to ask" };
      const res = await ask(client, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: { verb, group, resource, namespace, subresource } },
        },
      });
      if (res.code !== 201 && res.code !== 200) return { allowed: true, evidence: `a SelfSubjectAccessReview answered ${res.code}` };
      const allowed = (res.json as { status?: { allowed?: boolean } }).status?.allowed === true;
      return {
        allowed,
        evidence: `a SelfSubjectAccessReview says ${verb} ${group ? `${group}/` : ""}${resource}${subresource ? `/${subresource}` : ""} is ${allowed ? "allowed" : "not allowed"}`,
      };
    };

    /** A group/version type: listed in discovery and listable, or not served; listed but 404 is a violation. */
    const servedType = async (groupVersion: string, path: string, what: string): Promise<CapabilityState> => {
      if (!groupVersions.has(groupVersion)) return no(`${groupVersion} is not in the target's discovery (/apis)`);
      const res = await ask(client, "GET", path, { query: { limit: 1 } });
      if (res.code === 200) return yes(`${groupVersion} is in discovery and GET ${path} answered 200`);
      if (res.code === 403) return no(`the run's identity may not list ${what} (403)`);
      violate(
        `${what} list`,
        ["doc1.paths.group-prefix", "doc1.verbs.list-collection"],
        `${groupVersion} is in discovery, yet GET ${path} answered ${brief(res)}`,
      );
      return no(`GET ${path} answered ${res.code} although discovery lists ${groupVersion}`);
    };
    const withPermission = async (state: CapabilityState, checks: [string, string, string, string?, string?][]): Promise<CapabilityState> => {
      if (!state.available) return state;
      for (const [verb, group, resource, namespace, sub] of checks) {
        const p = await may(verb, group, resource, namespace, sub);
        if (!p.allowed) return no(p.evidence);
      }
      return state;
    };
    const gd = settings.spec.groupDomain;
    const crd = types.customResourceDefinitions;
    caps["custom-resources"] = await withPermission(await servedType(`${crd.group}/v1`, resourcePath(crd), "customresourcedefinitions"), [
      ["create", crd.group, "customresourcedefinitions"],
    ]);
    const vwc = types.validatingWebhookConfigurations;
    caps["admission-webhooks"] = await withPermission(await servedType(`${vwc.group}/v1`, resourcePath(vwc), "validatingwebhookconfigurations"), [
      ["create", vwc.group, "validatingwebhookconfigurations"],
    ]);
    const host = new URL(settings.target.url).hostname;
    caps["webhook-callback"] = !caps["admission-webhooks"].available
      ? no("admission webhooks are not served")
      : LOOPBACK.has(host)
        ? yes(`the target (${host}) is on this machine, where tollgate serves the webhook`)
        : no(`the target (${host}) would have to call back a webhook served by tollgate on this machine; only a target on this machine is assumed to reach it`);
    const rbacGv = `rbac.authorization.${gd}/v1`;
    let rbac = await servedType(rbacGv, `/apis/${rbacGv}/roles`, "roles");
    if (rbac.available && !coreResources.includes("serviceaccounts/token")) rbac = no("the target serves no serviceaccounts/token (TokenRequest) in /api/v1");
    caps.rbac = await withPermission(rbac, [
      ["create", "", "serviceaccounts"],
      ["create", "", "serviceaccounts", undefined, "token"],
      ["create", `rbac.authorization.${gd}`, "roles"],
      ["create", `rbac.authorization.${gd}`, "rolebindings"],
    ]);
    const review = async (gv: string, resource: string): Promise<CapabilityState> => {
      if (!groupVersions.has(gv)) return no(`${gv} is not in the target's discovery`);
      const p = await may("create", gv.split("/")[0] as string, resource);
      return p.allowed ? yes(`${gv} is served; ${p.evidence}`) : no(p.evidence);
    };
    caps["subject-access-reviews"] = await review(`authorization.${gd}/v1`, "subjectaccessreviews");
    caps["token-reviews"] = await review(`authentication.${gd}/v1`, "tokenreviews");
    const proxies = coreResources.filter((n) => n.endsWith("/proxy"));
    caps["proxy-subresource"] =
      proxies.length > 0
        ? yes(`/api/v1 lists ${proxies.join(", ")}`)
        : no("/api/v1 lists no proxy subresource (a real cluster has pods/proxy, services/proxy, nodes/proxy)");

    // ── probes that write, in a namespace of the run's own ─────────────────────────────────
    const ns = await session.createNamespace("detection");
    const cms = resourcePath(types.configmaps, ns);

    const cbor = await ask(client, "GET", cms, { accept: "application/cbor" });
    const cborType = cbor.headers["content-type"] ?? "";
    let cborState: CapabilityState;
    if (cbor.code === 200 && cborType.startsWith("application/cbor")) cborState = yes("a list asked for as application/cbor came back as CBOR");
    else if (cbor.code === 406) cborState = no("a list asked for as application/cbor got 406");
    else {
      violate(
        "cbor",
        ["doc1.media.rule1-none-supported-406", "doc1.errors.406-not-acceptable"],
        `a list asked for as application/cbor only answered ${cbor.code} with ${cborType || "no content type"}`,
      );
      cborState = no(`a list asked for as application/cbor answered ${cbor.code}`);
    }

    const missing = `tollgate-detect-${randomBytes(4).toString("hex")}`;
    const force = await ask(client, "DELETE", resourcePath(types.configmaps, ns, missing), {
      body: { kind: "DeleteOptions", apiVersion: "v1", [FORCE]: true },
    });
    let forceState: CapabilityState;
    if (force.code === 422 && force.text.includes("AllowUnsafeMalformedObjectDeletion"))
      forceState = no("a forced delete was refused with 422 naming the gate");
    else if (force.code === 404) forceState = yes("a forced delete of a missing object got 404, not the gate's 422");
    else if (force.code === 403) forceState = no(`the run's identity may not make a forced delete (403)`);
    else {
      violate(
        "force delete",
        ["doc1.delete-options.force-needs-gate"],
        `a forced delete of a missing object answered ${brief(force)}: neither the gate's 422 nor 404`,
      );
      forceState = no(`a forced delete answered ${force.code}`);
    }

    const before = await ask(client, "GET", cms);
    const rvBefore = (before.json as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion ?? "";
    const made = await ask(client, "POST", cms, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "probe" } } });
    if (made.code !== 201) violate("create", ["doc1.verbs.create-post"], `creating a ConfigMap in the run's namespace answered ${brief(made)}`);
    const rvMade = (made.json as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion ?? "";
    // The bookmark probe mostly waits (the whole window on a target without frequent bookmarks): it runs beside the rest.
    const bookmarkProbeMs = options.bookmarkProbeMs ?? 3_000;
    const bookmarksSeen = probeBookmarks(session, ns, rvMade, bookmarkProbeMs, violate);
    const exact = await ask(client, "GET", cms, { query: { resourceVersion: rvBefore, resourceVersionMatch: "Exact" } });
    const exactList = exact.json as { metadata?: { resourceVersion?: string }; items?: unknown[] } | undefined;
    // At rvBefore the namespace held what the cluster's controllers put there (kube-root-ca.crt), not the probe.
    const itemsBefore = ((before.json as { items?: unknown[] } | undefined)?.items ?? []).length;
    if (exact.code === 200 && (exactList?.metadata?.resourceVersion !== rvBefore || (exactList.items ?? []).length !== itemsBefore)) {
      caps["rvm-ignored"] = yes(
        `an Exact list at ${rvBefore} came back at ${String(exactList?.metadata?.resourceVersion)} with ${(exactList?.items ?? []).length} item(s)`,
      );
    } else caps["rvm-ignored"] = no(`an Exact list at ${rvBefore} answered ${exact.code === 200 ? "at exactly that version" : exact.code}`);

    caps["rate-limit"] = await probeRateLimit(client, cms, options.burst ?? 64);

    const bookmarks = await bookmarksSeen;
    // kube-apiserver sends a watcher that asked for them a bookmark about once a minute.
    const bookmarkWaitMs = bookmarks.available ? bookmarkProbeMs : options.thorough?.enabled ? 75_000 : 0;
    caps.bookmarks = bookmarks.available
      ? bookmarks
      : options.thorough?.enabled
        ? yes(`--thorough waits for the periodic bookmark (${bookmarks.evidence})`)
        : no(`${bookmarks.evidence}; --thorough waits the minute a real server takes`);

    caps.replicas = options.replicas?.length
      ? yes(await confirmReplicas(settings.target, options.replicas))
      : no("no --replica given: the run knows no other API server of the target's cluster");

    caps.thorough = options.thorough?.enabled ? yes(`--thorough: waits up to ${options.thorough.minutes} minutes`) : no("--thorough not given");

    // Gates: the operator's declaration wins; else detected (alpha gates, off by default) or the 1.35 default (beta gates, on).
    const detectedGates: Record<GateName, CapabilityState> = {
      CBORServingAndStorage: cborState,
      AllowUnsafeMalformedObjectDeletion: forceState,
      WatchList: yes("gate WatchList is on by default in 1.35 (--feature-gates WatchList=false says otherwise)"),
      APIResponseCompression: yes("gate APIResponseCompression is on by default in 1.35 (--feature-gates APIResponseCompression=false says otherwise)"),
    };
    for (const [gate, { capability }] of Object.entries(GATE_CAPABILITIES) as [GateName, (typeof GATE_CAPABILITIES)[GateName]][]) {
      const declared = options.declaredGates?.[gate];
      caps[capability] =
        declared === undefined
          ? detectedGates[gate]
          : declared
            ? yes(`declared on (--feature-gates ${gate}=true)`)
            : no(`declared off (--feature-gates ${gate}=false)`);
    }

    return { serverVersion, bookmarkWaitMs, capabilities: caps as ApiCapabilities, violations, durationMs: Date.now() - started };
  } finally {
    await session.cleanup().catch(() => undefined);
  }
}

/**
 * A made-up bearer token must get 401 wherever authentication is on. A target that lets it
 * through while refusing a request with no credentials at all authenticates, and accepted a
 * token it cannot know: that is a violation, and authentication counts as on.
 */
async function detectAuthentication(settings: RunSettings, violate: (probe: string, rules: RuleId[], message: string) => void): Promise<CapabilityState> {
  const path = "/api/v1/namespaces";
  const as = async (token: string | undefined): Promise<ApiResponse> => {
    const c = new ApiClient(asIdentity(settings.target, token), { suite: "detection" });
    try {
      return await ask(c, "GET", path, { query: { limit: 1 } });
    } finally {
      await c.close();
    }
  };
  const invalid = await as(`tollgate-made-up-${randomBytes(12).toString("hex")}`);
  if (invalid.code === 401) return yes("a made-up bearer token got 401");
  const anonymous = await as(undefined);
  if (anonymous.code === 401 || anonymous.code === 403) {
    violate(
      "authentication",
      ["doc1.auth.unauthenticated-401", "doc1.errors.401-unauthenticated"],
      `a made-up bearer token got ${brief(invalid)}, while a request without credentials got ${anonymous.code}`,
    );
    return yes(`a request without credentials got ${anonymous.code}`);
  }
  if (invalid.code === 200 && anonymous.code === 200)
    return no("the target answered a made-up token and a request without credentials alike (200): it does not authenticate");
  violate(
    "authentication",
    ["doc1.auth.unauthenticated-401", "doc1.errors.401-unauthenticated"],
    `a made-up bearer token got ${brief(invalid)}; without credentials ${anonymous.code}`,
  );
  return no(`a made-up bearer token got ${invalid.code}`);
}

/** A watch that asks for bookmarks, read for up to `waitMs`: did a BOOKMARK come? A frame that is not a watch event is a violation. */
async function probeBookmarks(
  session: Session,
  ns: string,
  rv: string,
  waitMs: number,
  violate: (probe: string, rules: RuleId[], message: string) => void,
): Promise<CapabilityState> {
  const started = Date.now();
  let stream: WatchStream;
  try {
    stream = await session.client.watch(session.types.configmaps, ns, {
      resourceVersion: rv,
      allowWatchBookmarks: true,
      timeoutSeconds: Math.ceil(waitMs / 1000) + 2,
    });
  } catch (e) {
    violate("bookmarks", ["doc1.verbs.watch-param"], `a watch with allowWatchBookmarks=true failed: ${(e as Error).message}`);
    return no("the bookmark watch failed");
  }
  try {
    for (;;) {
      const left = waitMs - (Date.now() - started);
      if (left <= 0) return no(`no BOOKMARK within ${waitMs} ms of a watch`);
      let ev: WatchEvent | undefined;
      try {
        ev = await stream.nextOrIdle(left);
      } catch (e) {
        if (e instanceof WatchProtocolError) {
          violate("bookmarks", ["doc1.watch-events.stream-documents", "doc1.watch-event.type-and-object"], e.message);
          return no("the watch sent a frame that is not a watch event");
        }
        throw e;
      }
      if (ev === undefined) return no(stream.ended ? "the bookmark watch ended without a BOOKMARK" : `no BOOKMARK within ${waitMs} ms of a watch`);
      if (ev.type === "BOOKMARK") return yes(`a BOOKMARK arrived ${Date.now() - started} ms into a watch`);
    }
  } finally {
    stream.close();
  }
}

/** Up to two bounded bursts of concurrent lists of the run's own namespace: is any answered 429? */
async function probeRateLimit(client: ApiClient, path: string, burst: number): Promise<CapabilityState> {
  for (let round = 1; round <= 2; round++) {
    // Past tollgate's own rate limit and 429 retries: the burst must reach the server as one, and its 429s be seen.
    const answers = await Promise.all(Array.from({ length: burst }, () => client.raw("GET", path, { bypassLimits: true })));
    const limited = answers.filter((a) => a.code === 429).length;
    if (limited > 0) return yes(`${limited} of a burst of ${burst} lists got 429`);
  }
  return no(`none of 2 bursts of ${burst} lists got 429`);
}

/** The capability set of an API detection (the daemon part comes from lib/runner/detect-daemons.ts). */
export type { Capabilities };
