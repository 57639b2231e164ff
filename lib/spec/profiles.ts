/**
 * Profiles: the rules grouped by what a target must offer for them to be checked. `core` is
 * what every 1.35 server in its default configuration must pass with no help (rules behind a
 * gate that 1.35 turns on by default included); every other profile belongs to one optional
 * capability. A run reports each profile, and `tollgate run --require PROFILE` fails the run
 * when a rule of that profile was not verified. Client duties belong to no profile: a run gives
 * no verdict on the server for them.
 */
import type { RuleId } from "./catalog.js";
import type { Rule } from "./types.js";

export const PROFILES = {
  core: "what every 1.35 server in its default configuration must pass, with no help",
  authentication: "authentication and authorization: who may do what (a target that authenticates)",
  admin: "what only a target set up for testing shows: tollgate's admin shortcuts (the clock, corrupt objects) or a small request limit",
  cbor: "CBOR bodies and watches (gate CBORServingAndStorage, alpha)",
  "force-delete": "the unsafe force delete of corrupt objects (gate AllowUnsafeMalformedObjectDeletion, alpha)",
  daemons: "the controller manager's and node agent's options and endpoints (doc3)",
} as const;

export type Profile = keyof typeof PROFILES;
export const PROFILE_NAMES = Object.keys(PROFILES) as Profile[];

export function isProfile(s: string): s is Profile {
  return Object.hasOwn(PROFILES, s);
}

/** Rules outside doc1's "Authentication" section that only an authenticating target can show. */
const AUTHENTICATION_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  "doc1.errors.401-unauthenticated",
  "doc1.paths.namespace-scope-authz",
  "doc1.names.virtual-types-unnamed",
  "doc2.endpoints.get-401",
  "doc2.endpoints.list-ns-401",
  "doc2.endpoints.list-all-401",
  "doc2.endpoints.create-401",
  "doc2.endpoints.update-401",
  "doc2.endpoints.patch-401",
  "doc2.endpoints.delete-401",
  "doc2.endpoints.deletecollection-401",
]);

/**
 * Rules a real cluster shows only after hours or under a load no polite check makes: an Event's
 * time to live (one hour by default), the answer to a rate-limited request. The emulator's
 * admin clock and its --max-requests-inflight bring them within a run.
 */
const ADMIN_RULES: ReadonlySet<RuleId> = new Set<RuleId>(["doc2.service.retention-limited", "doc1.limits.rate-limit"]);

const GATE_PROFILES: Readonly<Record<string, Profile>> = {
  CBORServingAndStorage: "cbor",
  AllowUnsafeMalformedObjectDeletion: "force-delete",
};

/** The profile a rule belongs to; undefined for client duties. */
export function profileOf(rule: Rule): Profile | undefined {
  if (rule.subject === "client") return undefined;
  if (rule.doc === "doc3") return "daemons";
  const byGate = rule.gate ? GATE_PROFILES[rule.gate.name] : undefined;
  if (byGate) return byGate;
  if (ADMIN_RULES.has(rule.id as RuleId)) return "admin";
  if ((rule.doc === "doc1" && rule.section === "Authentication") || AUTHENTICATION_RULES.has(rule.id as RuleId)) return "authentication";
  return "core";
}
