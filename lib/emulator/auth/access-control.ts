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
import { forbiddenError, StatusError } from "../apimachinery/api-errors.js";
import type { KubeObject } from "../apimachinery/json.js";
import { nameOf } from "../apimachinery/object-meta.js";
import { MASTERS_GROUP, type User } from "../apimachinery/user.js";
import type { RequestAttributes, ResourceAttributes } from "../registry/authorization/authorizer.js";
import type { TypeIdentity } from "../registry/generic/strategy.js";
import { type PolicyRule, RBAC_GROUP, rbacKindOf, referencedRole, roleRefOf, rulesOf } from "../registry/rbac/strategy.js";
import type { Authenticator } from "./authenticator.js";
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
   * Authenticates and authorizes one request, given its method, URL and Authorization header:
   * throws 401 or 403, else returns the user. `authorize` false (the test-only admin endpoint)
   * checks the credentials only.
   */
  check(method: string, url: URL, authorization: string | undefined, authorize = true): User {
    const authn = this.authenticator.authenticate(authorization);
    if (!authn.ok) throw unauthorized();
    if (!authorize) return authn.user;
    const attrs = requestAttributes(method, url);
    const decision = this.authorizer.authorize(authn.user, attrs);
    if (!decision.allowed) throw accessForbidden(authn.user.username, attrs, decision.reason);
    return authn.user;
  }

  private allowed(user: User, a: ResourceAttributes): boolean {
    return this.authorizer.authorize(user, a).allowed;
  }

  /**
   * An unsafe force delete needs `unsafe-delete-ignore-read-errors` on the object too (the
   * delete itself was authorized by check()); the real admission step's text.
   */
  admitUnsafeDelete(user: User | undefined, strategy: TypeIdentity, namespace: string, name: string): void {
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
    const decision = this.authorizer.authorize(user, a);
    if (!decision.allowed) {
      throw forbiddenError(
        { group: strategy.group, resource: strategy.resource },
        name,
        `not permitted to do "${UNSAFE_DELETE_VERB}", reason: ${decision.reason}`,
      );
    }
  }

  /**
   * Privilege escalation prevention on writes of roles and bindings: allowed with `escalate`
   * (roles) or `bind` (bindings, on the referenced role), else only when the user already holds
   * every permission granted, in the namespace of the object (cluster-wide for cluster types).
   */
  admitRbacWrite(user: User | undefined, strategy: TypeIdentity, namespace: string, object: KubeObject): void {
    if (!user || user.groups.includes(MASTERS_GROUP)) return;
    const rbacKind = rbacKindOf(strategy);
    if (!rbacKind) return;
    const attr = (verb: string, resource: string, name: string): ResourceAttributes => ({
      kind: "resource",
      verb,
      group: RBAC_GROUP,
      version: "v1",
      resource,
      subresource: "",
      namespace,
      name,
    });
    let granted: PolicyRule[];
    if (rbacKind === "role") {
      if (this.allowed(user, attr("escalate", strategy.resource, nameOf(object)))) return;
      granted = rulesOf(object);
    } else {
      const ref = roleRefOf(object);
      const role = referencedRole(ref, namespace);
      if (this.allowed(user, attr("bind", role.strategy.resource, ref.name))) return;
      const stored = this.authorizer.roleObject(role.strategy, role.namespace, ref.name);
      if (!stored) return; // a binding to a missing role grants nothing (yet)
      granted = rulesOf(stored);
    }
    const owned = this.authorizer.rulesFor(user, namespace);
    const missing = compact(granted.flatMap(breakdown).filter((r) => !owned.some((o) => covers(o, r))));
    if (missing.length === 0) return;
    const message = `user "${user.username}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.map(compactString).join("\n")}`;
    throw forbiddenError({ group: strategy.group, resource: strategy.resource }, nameOf(object), message);
  }
}
