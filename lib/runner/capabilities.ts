/**
 * What a target may offer and what a test may need (test262's `features`, for an API server):
 * a closed set of capability names, each detected once per run before any test
 * (lib/runner/detect.ts) with the evidence for it. A test declares `needs` from this set; the
 * runner marks it not applicable from that declaration alone, before it runs. A test never
 * decides for itself that it does not apply.
 *
 * A need is a capability (`"cbor"`: the target must offer it) or its negation (`"!cbor"`: the
 * test checks what a target without it does).
 */
import { DAEMON_CAPABILITIES } from "./daemon-capability-names.js";

export const API_CAPABILITIES = {
  authentication: "the target authenticates requests (a made-up bearer token gets 401)",
  "admin-compact": "tollgate's admin endpoint compacts history on request (test-only shortcut)",
  "admin-clock": "tollgate's admin endpoint moves the target's clock (test-only shortcut)",
  "admin-corrupt": "tollgate's admin endpoint makes a stored object unreadable (test-only shortcut)",
  cbor: "CBOR bodies and watches are served (gate CBORServingAndStorage, alpha, off by default)",
  "force-delete": "the unsafe force delete is served (gate AllowUnsafeMalformedObjectDeletion, alpha, off by default)",
  "watch-list": "streaming the initial state of a watch (gate WatchList, beta, on by default)",
  "response-compression": "gzip-compressed responses (gate APIResponseCompression, beta, on by default)",
  "custom-resources": "CustomResourceDefinitions are served and the run's identity may create them",
  "admission-webhooks": "admission webhook configurations are served and the run's identity may create them",
  "webhook-callback": "the target can call back a webhook served by tollgate on this machine",
  rbac: "ServiceAccounts, their tokens and RBAC Roles and bindings are served and the run's identity may create them",
  "subject-access-reviews": "the run's identity may create SubjectAccessReviews",
  "token-reviews": "the run's identity may create TokenReviews",
  "proxy-subresource": "the target serves a proxy subresource",
  "rate-limit": "the target limits a burst of requests (429)",
  "rvm-ignored": "the target does not honour resourceVersionMatch on lists",
  replicas: "--replica names other API servers that answer as the target's cluster (writes through one, reads through another)",
  bookmarks: "periodic BOOKMARK events can be seen within the run (a frequent cadence, or --thorough)",
  thorough: "--thorough: waiting for what a real server only shows with time (history compaction)",
} as const;

const CAPABILITIES = { ...API_CAPABILITIES, ...DAEMON_CAPABILITIES } as const;

export type Capability = keyof typeof CAPABILITIES;
export type Need = Capability | `!${Capability}`;

export const CAPABILITY_NAMES = Object.keys(CAPABILITIES) as Capability[];

export interface CapabilityState {
  available: boolean;
  /** What was asked and answered (or declared), in a few words, for the report. */
  evidence: string;
}

export type Capabilities = Record<Capability, CapabilityState>;

/** The feature gates whose state decides a capability, with their 1.35 defaults. */
export const GATE_CAPABILITIES = {
  CBORServingAndStorage: { capability: "cbor", default: false },
  AllowUnsafeMalformedObjectDeletion: { capability: "force-delete", default: false },
  WatchList: { capability: "watch-list", default: true },
  APIResponseCompression: { capability: "response-compression", default: true },
} as const satisfies Record<string, { capability: Capability; default: boolean }>;

export type GateName = keyof typeof GATE_CAPABILITIES;

function isCapability(s: string): s is Capability {
  return Object.hasOwn(CAPABILITIES, s);
}

export function isNeed(s: string): s is Need {
  return isCapability(s.startsWith("!") ? s.slice(1) : s);
}

/**
 * Why a test with these needs does not apply to a target with these capabilities: one reason
 * per unmet need, empty when every need is met. An unknown capability (a runner older than the
 * suite) is unmet, with that reason.
 */
export function unmetNeeds(needs: readonly Need[], caps: Partial<Capabilities>): string[] {
  return unmetNeedDetails(needs, caps).map((u) => `needs ${u.need.startsWith("!") ? `no ${u.need.slice(1)}` : u.need}: ${u.evidence}`);
}

/** An unmet need with the capability's evidence (what the detection asked and was answered), as the reports carry it. */
export interface UnmetNeed {
  need: string;
  evidence: string;
}

/** The needs a target with these capabilities does not meet, each with the evidence that decided it. */
export function unmetNeedDetails(needs: readonly Need[], caps: Partial<Capabilities>): UnmetNeed[] {
  const out: UnmetNeed[] = [];
  for (const need of needs) {
    const negated = need.startsWith("!");
    const state = caps[(negated ? need.slice(1) : need) as Capability];
    if (!state) out.push({ need, evidence: "the runner did not detect it" });
    else if (state.available === negated) out.push({ need, evidence: state.evidence });
  }
  return out;
}
