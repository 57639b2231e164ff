/**
 * The authentication and authorization step every request passes before its handler, as the
 * real filter chain does (authentication, then authorization; both before routing, so a path
 * nobody may read is 403 even when it does not exist): an unknown token is 401 `Unauthorized`;
 * a request RBAC does not allow is 403 with the real text (`configmaps "x" is forbidden: User
 * "u" cannot get resource "configmaps" in API group "" in the namespace "ns"`, `… at the cluster
 * scope`, `forbidden: User "u" cannot get path "/apis"`). It reads the request as data (method,
 * URL, Authorization header) and returns the user, which the endpoints keep with the request
 * for the handlers (reviews, admission, the escalation check): no HTTP object reaches auth.
 *
 * Also here: the escalation check on RBAC writes (a user may create a role or binding only with
 * the permissions it grants, or the `escalate`/`bind` verb), and the second authorization an
 * unsafe force delete needs (`unsafe-delete-ignore-read-errors`).
 */

import { failure } from "../../wire/status.js";
import { forbiddenError, notFound, StatusError } from "../apimachinery/api-errors.js";
import { isJsonObject, type KubeObject } from "../apimachinery/json.js";
import { nameOf } from "../apimachinery/object-meta.js";
import { ANONYMOUS_USER, MASTERS_GROUP, type User } from "../apimachinery/user.js";
import type { RequestAttributes, ResourceAttributes } from "../registry/authorization/authorizer.js";
import type { TypeIdentity } from "../registry/generic/strategy.js";
import { type PolicyRule, RBAC_GROUP, rbacKindOf, referencedRole, roleRefOf, rulesOf } from "../registry/rbac/strategy.js";
import type { Authenticator } from "./authenticator.js";
import { type DistinctHeaders, impersonate } from "./impersonation.js";
import type { RbacAuthorizer } from "./rbac-authorizer.js";
import { requestAttributes } from "./request-attributes.js";

const UNSAFE_DELETE_VERB = "unsafe-delete-ignore-read-errors";

export function unauthorized(): StatusError {
  return new StatusError(failure(401, "Unauthorized", "Unauthorized"));
}

/** responsewriters.forbiddenMessage, with the authorizer's reason after a colon when it gave one. */
function forbiddenMessage(username: string, a: RequestAttributes, reason: string): string {
  const tail = reason ? `: ${reason}` : "";
  if (a.kind === "nonResource") return `User "${username}" cannot ${a.verb} path "${a.path}"${tail}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  return `User "${username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}${tail}`;
}

function accessForbidden(username: string, a: RequestAttributes, reason: string): StatusError {
  const message = forbiddenMessage(username, a, reason);
  if (a.kind === "nonResource") return new StatusError(failure(403, "Forbidden", `forbidden: ${message}`, {}));
  return forbiddenError({ group: a.group, resource: a.resource }, a.name, message);
}

const goQuotedList = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;

/** A rule as rbac's CompactString prints it: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups.length) parts.push(`APIGroups:${goQuotedList(r.apiGroups)}`);
  if (r.resources.length) parts.push(`Resources:${goQuotedList(r.resources)}`);
  if (r.nonResourceURLs.length) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs)}`);
  if (r.resourceNames.length) parts.push(`ResourceNames:${goQuotedList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/** One rule per group, resource, resource name and verb (or per URL and verb). */
function breakdown(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const none: readonly string[] = [];
  for (const verb of r.verbs) {
    for (const url of r.nonResourceURLs) out.push({ verbs: [verb], apiGroups: none, resources: none, resourceNames: none, nonResourceURLs: [url] });
    for (const group of r.apiGroups) {
      for (const resource of r.resources) {
        const names = r.resourceNames.length ? r.resourceNames.map((n) => [n]) : [none];
        for (const resourceNames of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames, nonResourceURLs: none });
      }
    }
  }
  return out;
}

const anyOf = (list: readonly string[], value: string): boolean => list.includes("*") || list.includes(value);

/** Whether an owner rule covers one broken-down rule (rbac's ruleCovers, for exact values and `*`). */
function covers(owner: PolicyRule, r: PolicyRule): boolean {
  const verb = r.verbs[0] ?? "";
  if (!anyOf(owner.verbs, verb)) return false;
  const url = r.nonResourceURLs[0];
  if (url !== undefined) return owner.nonResourceURLs.some((u) => u === "*" || u === url || (u.endsWith("*") && url.startsWith(u.slice(0, -1))));
  const group = r.apiGroups[0] ?? "";
  const resource = r.resources[0] ?? "";
  const sub = resource.includes("/") ? resource.slice(resource.indexOf("/")) : "";
  const resourceOk = owner.resources.some((o) => o === "*" || o === resource || (sub !== "" && o === `*${sub}`));
  const name = r.resourceNames[0];
  const nameOk = owner.resourceNames.length === 0 || (name !== undefined && owner.resourceNames.includes(name));
  return anyOf(owner.apiGroups, group) && resourceOk && nameOk;
}

/** Missing rules merged back per group, resource and name, verbs together (rbac's CompactRules). */
function compact(rules: PolicyRule[]): PolicyRule[] {
  const merged = new Map<string, PolicyRule>();
  for (const r of rules) {
    const key = JSON.stringify([r.apiGroups, r.resources, r.resourceNames, r.nonResourceURLs]);
    const prev = merged.get(key);
    merged.set(key, prev ? { ...prev, verbs: [...prev.verbs, ...r.verbs] } : r);
  }
  return [...merged.values()];
}

export class AccessControl {
  constructor(
    readonly authenticator: Authenticator,
    readonly authorizer: RbacAuthorizer,
  ) {}

  /**
   * Authenticates, impersonates (auth/impersonation.ts) and authorizes one request, given its
   * method, URL and headers: throws 401, 403 (or the 500 of impersonation without a user), else
   * returns the user the request acts as. The test-only admin endpoint (scope "admin") can
   * rewrite history and time for everyone, so it is not an RBAC resource: only system:masters
   * may call it; anonymous requests are 401 and any other user 403.
   */
  async check(method: string, url: URL, headers: DistinctHeaders, scope: "api" | "admin" = "api"): Promise<User> {
    const authn = await this.authenticator.authenticate(headers["authorization"]?.[0]);
    if (!authn.ok) throw unauthorized();
    const user = await impersonate(authn.user, headers, this.authorizer, (u, a, reason) => accessForbidden(u.username, a, reason));
    if (scope === "admin") {
      if (user.username === ANONYMOUS_USER) throw unauthorized();
      if (!user.groups.includes(MASTERS_GROUP)) {
        // The text of a refused non-resource request; its verb is the lower-cased method, as in RequestInfo.
        const a: RequestAttributes = { kind: "nonResource", verb: method.toLowerCase(), path: url.pathname };
        throw accessForbidden(user.username, a, `the admin endpoint is only for group ${MASTERS_GROUP}`);
      }
      return user;
    }
    const attrs = requestAttributes(method, url);
    const decision = await this.authorizer.authorize(user, attrs);
    if (!decision.allowed) throw accessForbidden(user.username, attrs, decision.reason);
    return user;
  }

  private async allowed(user: User, a: ResourceAttributes): Promise<boolean> {
    return (await this.authorizer.authorize(user, a)).allowed;
  }

  /**
   * An unsafe force delete needs `unsafe-delete-ignore-read-errors` on the object too (the
   * delete itself was authorized by check()); the real admission step's text.
   */
  async admitUnsafeDelete(user: User | undefined, strategy: TypeIdentity, namespace: string, name: string): Promise<void> {
    if (!user) return;
    const a: ResourceAttributes = {
      kind: "resource",
      verb: UNSAFE_DELETE_VERB,
      group: strategy.group,
      version: strategy.version,
      resource: strategy.resource,
      subresource: "",
      namespace,
      name,
    };
    const decision = await this.authorizer.authorize(user, a);
    if (!decision.allowed) {
      throw forbiddenError(
        { group: strategy.group, resource: strategy.resource },
        name,
        `not permitted to do "${UNSAFE_DELETE_VERB}", reason: ${decision.reason}`,
      );
    }
  }

  /**
   * Privilege escalation prevention on writes of roles and bindings (wire-facts §16), checked in
   * this order:
   *  - system:masters may write anything;
   *  - an update that changes only ownerReferences or finalizers is not checked, so the garbage
   *    collector can always let go of these objects;
   *  - a role needs `escalate` on its own resource (name from the URL, "" on create), a binding
   *    `bind` on the role it references (group and name from roleRef, the binding's namespace);
   *  - else the user must already hold every rule granted, in the namespace of the request. For a
   *    binding the referenced role must then exist: 404 otherwise, so a binding to a role created
   *    later cannot grant what its author never held;
   *  - a ClusterRole with an aggregationRule (before or after) needs every permission there is.
   * `old` is the stored object of an update (undefined on create, or a create through PUT).
   */
  async admitRbacWrite(
    user: User | undefined,
    strategy: TypeIdentity,
    namespace: string,
    urlName: string,
    object: KubeObject,
    old?: KubeObject,
  ): Promise<void> {
    if (!user || user.groups.includes(MASTERS_GROUP)) return;
    const rbacKind = rbacKindOf(strategy);
    if (!rbacKind) return;
    if (old && onlyGcFieldsChanged(object, old)) return;
    const attr = (verb: string, group: string, resource: string, name: string): ResourceAttributes => ({
      kind: "resource",
      verb,
      group,
      version: "*",
      resource,
      subresource: "",
      namespace,
      name,
    });
    let granted: PolicyRule[];
    if (rbacKind === "role") {
      if (await this.allowed(user, attr("escalate", strategy.group, strategy.resource, urlName))) return;
      granted = rulesOf(object);
    } else {
      const ref = roleRefOf(object);
      if (ref.kind !== "Role" && ref.kind !== "ClusterRole") {
        // GetRoleReferenceRules' plain error, which the apiserver answers as a 500 without a reason.
        throw new StatusError(failure(500, "", `unsupported role reference kind: ${JSON.stringify(ref.kind)}`));
      }
      const role = referencedRole(ref, namespace);
      if (await this.allowed(user, attr("bind", ref.apiGroup, role.strategy.resource, ref.name))) return;
      const stored = await this.authorizer.roleObject(role.strategy, role.namespace, ref.name);
      if (!stored) throw notFound({ group: RBAC_GROUP, resource: role.strategy.resource }, ref.name);
      granted = rulesOf(stored);
    }
    const errors: string[] = [];
    const owned = await this.authorizer.rulesFor(user, namespace, errors);
    const refuse = (message: string): StatusError => forbiddenError({ group: strategy.group, resource: strategy.resource }, nameOf(object), message);
    const missing = notHeld(granted, owned);
    if (missing.length) {
      // A sorted set of descriptions, as sets.String.List() gives them.
      const lines = [...new Set(missing.map(compactString))].sort();
      let message = `user "${user.username}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;
      if (errors.length) message += `; resolution errors: [${aggregateMessage(errors)}]`;
      throw refuse(message);
    }
    // An aggregation rule gathers any rules, so setting, changing or dropping one takes full authority.
    if (rbacKind === "role" && !strategy.namespaced && (hasAggregationRule(object) || (old !== undefined && hasAggregationRule(old)))) {
      if (notHeld(FULL_AUTHORITY, owned).length) throw refuse("must have cluster-admin privileges to use the aggregationRule");
    }
  }
}

const NONE: readonly string[] = [];
/** `*` on every resource of every group, and on every non-resource URL (cluster-admin's rules). */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"], resourceNames: NONE, nonResourceURLs: NONE },
  { verbs: ["*"], apiGroups: NONE, resources: NONE, resourceNames: NONE, nonResourceURLs: ["*"] },
];

/** The granted rules no owned rule covers, merged back (rbac's Covers, then CompactRules). */
function notHeld(granted: readonly PolicyRule[], owned: readonly PolicyRule[]): PolicyRule[] {
  return compact(granted.flatMap(breakdown).filter((r) => !owned.some((o) => covers(o, r))));
}

function hasAggregationRule(o: KubeObject): boolean {
  const rule = o["aggregationRule"];
  return isJsonObject(rule) && Array.isArray(rule["clusterRoleSelectors"]) && rule["clusterRoleSelectors"].length > 0;
}

/** utilerrors.Aggregate's Error(): one message alone, several (deduplicated) in brackets. */
function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? "") : `[${unique.join(", ")}]`;
}

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && Object.keys(v).length === 0);

/** apimachinery's semantic DeepEqual on JSON: an empty list or map equals an absent one. */
function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    return [...new Set([...Object.keys(ao), ...Object.keys(bo)])].every((k) => semanticEqual(ao[k], bo[k]));
  }
  return a === b;
}

/**
 * rbac's IsOnlyMutatingGCFields copies ownerReferences, finalizers and selfLink; managedFields
 * too here, since the field manager has already recorded the change in them (the server's own
 * bookkeeping, not something the user touched).
 */
const GC_FIELDS = ["ownerReferences", "finalizers", "selfLink", "managedFields"] as const;

/** The new object equals the old once its GC fields are the old ones. */
function onlyGcFieldsChanged(object: KubeObject, old: KubeObject): boolean {
  const meta = isJsonObject(object["metadata"]) ? { ...object["metadata"] } : {};
  const oldMeta = isJsonObject(old["metadata"]) ? old["metadata"] : {};
  for (const f of GC_FIELDS) {
    if (oldMeta[f] === undefined) delete meta[f];
    else meta[f] = oldMeta[f];
  }
  return semanticEqual({ ...object, metadata: meta }, old);
}
