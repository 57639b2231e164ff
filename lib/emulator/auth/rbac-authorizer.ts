/**
 * The authorizer: system:masters is allowed everything first (the privileged group authorizer,
 * no reason), then RBAC over the stored ClusterRoleBindings and, for a request in a namespace,
 * that namespace's RoleBindings. A rule matches on verbs, apiGroups, resources (`*`,
 * `resource/subresource`, `*\/subresource`), resourceNames, or on nonResourceURLs (`*` and
 * prefix `…*`). The reasons are the real ones: `RBAC: allowed by RoleBinding "b/ns" of Role "r"
 * to ServiceAccount "sa/ns"`; a denial carries none, unless a referenced role is missing.
 */

import type { JsonObject, KubeObject } from "../apimachinery/json.js";
import { nameOf, namespaceOf } from "../apimachinery/object-meta.js";
import { MASTERS_GROUP, serviceAccountUsername, type User } from "../apimachinery/user.js";
import { type Failpoints, NO_FAILPOINTS } from "../failpoints.js";
import type { Authorizer, Decision, RequestAttributes } from "../registry/authorization/authorizer.js";
import type { ResolvedRules, RulesResolver } from "../registry/authorization/reviews.js";
import type { ResourceStrategy } from "../registry/generic/strategy.js";
import {
  clusterRoleBindingStrategy,
  type PolicyRule,
  RBAC_GROUP,
  referencedRole,
  roleBindingStrategy,
  roleRefOf,
  rulesOf,
  type Subject,
  subjectsOf,
} from "../registry/rbac/strategy.js";
import type { ObjectStorage } from "../storage/object-storage.js";

function has(list: readonly string[], value: string): boolean {
  return list.includes("*") || list.includes(value);
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return rule.resources.some((r) => r === "*" || r === combined || (subresource !== "" && r === `*/${subresource}`));
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return rule.nonResourceURLs.some((u) => u === "*" || u === path || (u.endsWith("*") && path.startsWith(u.slice(0, -1))));
}

function ruleAllows(rule: PolicyRule, a: RequestAttributes, ignoreVerbs: boolean): boolean {
  if (!ignoreVerbs && !has(rule.verbs, a.verb)) return false;
  if (a.kind === "nonResource") return urlMatches(rule, a.path);
  return (
    has(rule.apiGroups, a.group) &&
    resourceMatches(rule, a.resource, a.subresource) &&
    (rule.resourceNames.length === 0 || (a.name !== "" && rule.resourceNames.includes(a.name)))
  );
}

function subjectApplies(s: Subject, user: User, bindingNamespace: string): boolean {
  switch (s.kind) {
    case "User":
      return s.name === user.username;
    case "Group":
      return user.groups.includes(s.name);
    case "ServiceAccount":
      return serviceAccountUsername(s.namespace || bindingNamespace, s.name) === user.username;
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") return `ServiceAccount "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

/** One binding that applies to the user, with the rules of its role. */
export interface AppliedBinding {
  readonly description: string;
  readonly rules: readonly PolicyRule[];
}

/** A policy rule as authorization/v1 ResourceRule: verbs always, the lists only when set. */
function resourceRuleJson(r: PolicyRule): JsonObject {
  const out: JsonObject = { verbs: [...r.verbs] };
  if (r.apiGroups.length) out["apiGroups"] = [...r.apiGroups];
  if (r.resources.length) out["resources"] = [...r.resources];
  if (r.resourceNames.length) out["resourceNames"] = [...r.resourceNames];
  return out;
}

export class RbacAuthorizer implements Authorizer, RulesResolver {
  constructor(
    private readonly storage: ObjectStorage,
    /** The emulator's failpoints (failpoints.ts): none but in tollgate's self-test. */
    private readonly failpoints: Failpoints = NO_FAILPOINTS,
  ) {}

  private async objects(strategy: ResourceStrategy, namespace: string | undefined): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const kv of (await this.storage.range(strategy, namespace)).kvs) {
      if (this.storage.isCorrupt(kv)) continue;
      out.push(this.storage.decode(kv));
    }
    return out;
  }

  /**
   * A role's rules; a missing one adds its NotFound text to `errors`, with the singular resource
   * as the authorizer's listers say it, or the plural as the registry (the escalation check) does.
   */
  private async roleRules(kind: string, name: string, namespace: string, errors: string[], plural: boolean): Promise<PolicyRule[]> {
    const role = referencedRole({ kind }, namespace);
    const stored = await this.roleObject(role.strategy, role.namespace, name);
    if (!stored) {
      errors.push(`${plural ? role.strategy.resource : role.strategy.singularName}.${RBAC_GROUP} "${name}" not found`);
      return [];
    }
    return rulesOf(stored);
  }

  /**
   * The bindings that apply to the user in this namespace ("" for cluster scope): the cluster
   * role bindings, then the namespace's role bindings; unresolvable role references in `errors`
   * (`plural`: in the registry's words, see roleRules).
   */
  async appliedBindings(user: User, namespace: string, errors: string[] = [], plural = false): Promise<AppliedBinding[]> {
    const out: AppliedBinding[] = [];
    // One binding after another, as before: the order of bindings and of resolution errors is the answer's.
    const add = async (binding: KubeObject, bindingKind: string, bindingNamespace: string): Promise<void> => {
      const subject = subjectsOf(binding).find((s) => subjectApplies(s, user, bindingNamespace));
      if (!subject) return;
      const ref = roleRefOf(binding);
      const rules = await this.roleRules(ref.kind, ref.name, bindingNamespace, errors, plural);
      const bindingName = bindingNamespace ? `${nameOf(binding)}/${bindingNamespace}` : nameOf(binding);
      out.push({ description: `${bindingKind} "${bindingName}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject, bindingNamespace)}`, rules });
    };
    for (const b of await this.objects(clusterRoleBindingStrategy, undefined)) await add(b, "ClusterRoleBinding", "");
    // Role bindings of every namespace count everywhere with failpoint rolebinding-grants-cluster-wide.
    if (this.failpoints.has("rolebinding-grants-cluster-wide"))
      for (const b of await this.objects(roleBindingStrategy, undefined)) await add(b, "RoleBinding", namespaceOf(b));
    else if (namespace) for (const b of await this.objects(roleBindingStrategy, namespace)) await add(b, "RoleBinding", namespaceOf(b));
    return out;
  }

  /** A stored role (Role or ClusterRole), if readable. */
  async roleObject(strategy: ResourceStrategy, namespace: string, name: string): Promise<KubeObject | undefined> {
    const kv = await this.storage.entry(strategy, this.storage.key(strategy, namespace, name));
    return kv && !this.storage.isCorrupt(kv) ? this.storage.decode(kv) : undefined;
  }

  /**
   * All the rules the user holds in a namespace ("" for the cluster scope), as the escalation
   * check's resolver reads them: references to missing roles in `errors`, in the registry's words.
   */
  async rulesFor(user: User, namespace: string, errors: string[] = []): Promise<PolicyRule[]> {
    return (await this.appliedBindings(user, namespace, errors, true)).flatMap((b) => b.rules);
  }

  /**
   * RBAC's RulesFor for a SelfSubjectRulesReview: every rule of every binding that applies, in
   * binding order (duplicates kept), a rule with resources as a resource rule and one with URLs
   * as a non-resource rule; never incomplete, a missing role only in evaluationError. The
   * privileged group has no rule resolver: system:masters shows what its bindings grant
   * (cluster-admin, bound to it by default).
   */
  async resolveRules(user: User, namespace: string): Promise<ResolvedRules> {
    const errors: string[] = [];
    const rules = (await this.appliedBindings(user, namespace, errors)).flatMap((b) => b.rules);
    return {
      resourceRules: rules.filter((r) => r.resources.length > 0).map(resourceRuleJson),
      nonResourceRules: rules.filter((r) => r.nonResourceURLs.length > 0).map((r) => ({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] })),
      incomplete: false,
      evaluationError: errors.length === 0 ? "" : errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`,
    };
  }

  async authorize(user: User, a: RequestAttributes): Promise<Decision> {
    if (user.groups.includes(MASTERS_GROUP)) return { allowed: true, reason: "" };
    const errors: string[] = [];
    const namespace = a.kind === "resource" ? a.namespace : "";
    for (const b of await this.appliedBindings(user, namespace, errors)) {
      // A rule read without its verbs (failpoint rbac-ignores-verbs).
      if (b.rules.some((r) => ruleAllows(r, a, this.failpoints.has("rbac-ignores-verbs"))))
        return { allowed: true, reason: `RBAC: allowed by ${b.description}` };
    }
    return { allowed: false, reason: errors.length ? `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}` : "" };
  }
}
