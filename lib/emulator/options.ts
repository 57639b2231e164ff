/** Emulator settings, with the defaults of a real 1.35 server where one exists. */
import { randomBytes } from "node:crypto";
import { type FeatureGates, resolveFeatureGates } from "./apimachinery/feature-gates.js";
import { DEFAULT_WATCH_BACKLOG_BYTES } from "./endpoints/handlers/watch-outbox.js";
import { DEFAULT_MAX_BODY_BYTES } from "./endpoints/http-io.js";
import { type FailpointName, type Failpoints, isFailpointName, NO_FAILPOINTS } from "./failpoints.js";
import { type ServiceRange, serviceRange } from "./registry/core/service/cluster-ip.js";
import { DEFAULT_EVENT_TTL_MS } from "./storage/event-ttl.js";
import { DEFAULT_MAX_REQUEST_BYTES, DEFAULT_QUOTA_BYTES, DEFAULT_RETENTION_MS } from "./storage/store.js";

export interface EmulatorSettings {
  /** Interval between BOOKMARK events on watches that asked for them (watch-cached types; plus one 2 s before the deadline; 0: none). */
  readonly bookmarkIntervalMs: number;
  /** Watch history window of the store (etcd compaction); older resourceVersions get 410. */
  readonly retentionMs: number;
  /** Delay before the namespace controller empties a terminating namespace. */
  readonly namespaceCleanupDelayMs: number;
  /** Runs the controllers that put the `default` ServiceAccount and `kube-root-ca.crt` in every namespace, as a real cluster does. */
  readonly namespaceContent: boolean;
  /** Delay before those controllers act on a namespace (and put deleted content back). */
  readonly namespaceContentDelayMs: number;
  /** Request body limit (413 above it). */
  readonly maxRequestBodyBytes: number;
  /** etcd --max-request-bytes: a stored object (key and JSON value) larger than this is refused, a 500 as on a real server. */
  readonly maxStorageRequestBytes: number;
  /** etcd --quota-backend-bytes: what the store keeps, current values and watch history, stays under this (500 past it). */
  readonly storageQuotaBytes: number;
  /** Age (by the emulator clock) after which a continue token answers 410 Expired. */
  readonly continueTokenLifetimeMs: number;
  /** Time (by the emulator clock) from an event's last write to its deletion (kube-apiserver --event-ttl). */
  readonly eventTtlMs: number;
  /**
   * Requests served at once above which the extra ones get a 429 of API Priority and Fairness
   * (kube-apiserver --max-requests-inflight); watches, health and admin paths are exempt. 0: unlimited.
   */
  readonly maxRequestsInFlight: number;
  /**
   * Per-watch backlog bound: bytes produced for a watch stream and not yet taken by its client
   * (queued events, the socket's buffer) plus its initial events still to send. A stream over
   * it with nothing taken for 200 ms, or with four times as much produced, is ended as the real
   * cacher ends a watcher that falls behind (watch-outbox.ts). Default 8 MiB.
   */
  readonly watchBacklogBytes: number;
  /** Serves the test-only /tollgate/admin endpoint (compaction, clock). */
  readonly admin: boolean;
  /** The feature gates in effect (feature-gates.ts), the 1.35 defaults unless overridden. */
  readonly featureGates: FeatureGates;
  /**
   * Authentication and RBAC authorization (auth/*): bearer tokens required for anything beyond
   * what anonymous callers may do; off by default, so the fake cluster serves everyone as an admin.
   */
  readonly auth: boolean;
  /** The bearer token of the emulator's administrator (group system:masters) when auth is on; random when not given. */
  readonly adminToken: string;
  /** Failpoints switched on (failpoints.ts): none, except in tollgate's self-test. */
  readonly failpoints: Failpoints;
  /** The Services' cluster IP range (kube-apiserver --service-cluster-ip-range), kubeadm's 10.96.0.0/12 by default. */
  readonly serviceClusterIpRange: ServiceRange;
}

/** What callers may give: any subset, with feature gates by name (unknown names are refused). */
export type SettingsInput = Partial<Omit<EmulatorSettings, "featureGates" | "failpoints" | "serviceClusterIpRange">> & {
  featureGates?: Readonly<Record<string, boolean>>;
  failpoints?: readonly string[];
  /** An IPv4 CIDR, /12 to /30; another is refused with ServiceRangeError. */
  serviceClusterIpRange?: string;
};

/** A failpoint name the emulator does not have. */
export class FailpointError extends Error {}

type NumericSetting = Exclude<
  keyof EmulatorSettings,
  "admin" | "featureGates" | "auth" | "namespaceContent" | "adminToken" | "failpoints" | "serviceClusterIpRange"
>;

/** doc1 "Limits": a continue token lives 5 minutes by default. */
const DEFAULT_CONTINUE_TOKEN_LIFETIME_MS = 5 * 60 * 1000;

/** setInterval turns a longer delay into 1 ms, so a longer bookmark interval would flood. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const DEFAULT_SETTINGS: EmulatorSettings = {
  bookmarkIntervalMs: 60_000,
  retentionMs: DEFAULT_RETENTION_MS,
  // A real namespace controller takes about a second or more for an empty namespace (discovery,
  // then a delete per type); 0 would empty it before `kubectl delete -f`'s next DELETE of its content.
  namespaceCleanupDelayMs: 1000,
  // Informer latency: the controllers see a new namespace a few milliseconds after it is written.
  namespaceContentDelayMs: 20,
  maxRequestBodyBytes: DEFAULT_MAX_BODY_BYTES,
  maxStorageRequestBytes: DEFAULT_MAX_REQUEST_BYTES,
  storageQuotaBytes: DEFAULT_QUOTA_BYTES,
  continueTokenLifetimeMs: DEFAULT_CONTINUE_TOKEN_LIFETIME_MS,
  eventTtlMs: DEFAULT_EVENT_TTL_MS,
  maxRequestsInFlight: 0,
  watchBacklogBytes: DEFAULT_WATCH_BACKLOG_BYTES,
  admin: false,
  featureGates: resolveFeatureGates(undefined),
  auth: false,
  namespaceContent: true,
  adminToken: "",
  failpoints: NO_FAILPOINTS,
  serviceClusterIpRange: serviceRange(),
};

const TIMER_SETTINGS: ReadonlySet<NumericSetting> = new Set(["bookmarkIntervalMs", "namespaceCleanupDelayMs", "namespaceContentDelayMs"]);

function resolveFailpoints(names: readonly string[] | undefined): Failpoints {
  if (!names?.length) return NO_FAILPOINTS;
  const unknown = names.filter((n) => !isFailpointName(n));
  if (unknown.length > 0) throw new FailpointError(`unknown failpoint ${unknown.map((n) => `"${n}"`).join(", ")}`);
  return new Set(names as FailpointName[]);
}

/** Throws FeatureGateError for an unknown gate name, FailpointError for an unknown failpoint, ServiceRangeError for a bad service range; other bad values fall back to the defaults. */
export function resolveSettings(partial: SettingsInput): EmulatorSettings {
  const pick = (key: NumericSetting): number => {
    const v = partial[key];
    const max = TIMER_SETTINGS.has(key) ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
    return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= max ? v : DEFAULT_SETTINGS[key];
  };
  return {
    bookmarkIntervalMs: pick("bookmarkIntervalMs"),
    retentionMs: pick("retentionMs"),
    namespaceCleanupDelayMs: pick("namespaceCleanupDelayMs"),
    namespaceContentDelayMs: pick("namespaceContentDelayMs"),
    maxRequestBodyBytes: pick("maxRequestBodyBytes"),
    maxStorageRequestBytes: pick("maxStorageRequestBytes"),
    storageQuotaBytes: pick("storageQuotaBytes"),
    continueTokenLifetimeMs: pick("continueTokenLifetimeMs"),
    eventTtlMs: pick("eventTtlMs"),
    maxRequestsInFlight: Math.floor(pick("maxRequestsInFlight")),
    // 0 would end every stream with a byte in flight.
    watchBacklogBytes: pick("watchBacklogBytes") || DEFAULT_WATCH_BACKLOG_BYTES,
    admin: partial.admin === true,
    featureGates: resolveFeatureGates(partial.featureGates),
    auth: partial.auth === true,
    namespaceContent: partial.namespaceContent !== false,
    // Bearer tokens are one header word: a token with spaces could never be presented.
    adminToken: typeof partial.adminToken === "string" && /^\S+$/.test(partial.adminToken) ? partial.adminToken : randomBytes(24).toString("hex"),
    failpoints: resolveFailpoints(partial.failpoints),
    serviceClusterIpRange: partial.serviceClusterIpRange === undefined ? DEFAULT_SETTINGS.serviceClusterIpRange : serviceRange(partial.serviceClusterIpRange),
  };
}
