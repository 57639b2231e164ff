/**
 * Impersonation (wire-facts §15; apiserver's filters/impersonation.go): the Impersonate-User,
 * Impersonate-Group (repeatable), Impersonate-Uid and Impersonate-Extra-<key> headers replace
 * the authenticated user, once the authorizer allows the requester verb `impersonate` on each
 * item (users, or serviceaccounts for `system:serviceaccount:<ns>:<name>`; groups; uids and
 * userextras/<key> in authentication.k8s.io). The first denial is a 403 with the real text.
 * Groups, extras or a uid without a user are refused as the real filter refuses them: a 500
 * (InternalError) `requested [<Go %v of the references>] without impersonating a user`.
 */
import { internalError } from "../apimachinery/api-errors.js";
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type User } from "../apimachinery/user.js";
import type { Authorizer, ResourceAttributes } from "../registry/authorization/authorizer.js";
import type { RulesResolver } from "../registry/authorization/reviews.js";

const AUTHENTICATION = "authentication.k8s.io";
const EXTRA_PREFIX = "impersonate-extra-";
const SA_PREFIX = "system:serviceaccount:";

/** Request headers as Node's headersDistinct gives them: lower-cased names, one entry per line. */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>;

/** One thing asked for: a core/v1 ObjectReference in the real filter. */
interface Item {
  readonly kind: "User" | "ServiceAccount" | "Group" | "UserExtra" | "UID";
  readonly namespace: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly fieldPath: string;
}

/** An ObjectReference as Go's %v prints it: every field in order, separated by spaces. */
const goValue = (i: Item): string => `{${[i.kind, i.namespace, i.name, "", i.apiVersion, "", i.fieldPath].join(" ")}}`;

/** url.PathUnescape, keeping the key as given when it is malformed. */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** serviceaccount.SplitUsername: `system:serviceaccount:<ns>:<name>`, both parts non-empty, no more colons. */
function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(":");
  const [namespace, name] = parts;
  if (parts.length !== 2 || !namespace || !name) return undefined;
  return { namespace, name };
}

function itemsOf(headers: DistinctHeaders): Item[] {
  const items: Item[] = [];
  const first = (name: string): string => headers[name]?.[0] ?? "";
  const user = first("impersonate-user");
  const item = (kind: Item["kind"], name: string, extra: Partial<Item> = {}): Item => ({ kind, namespace: "", name, apiVersion: "", fieldPath: "", ...extra });
  if (user) {
    const sa = splitServiceAccount(user);
    items.push(sa ? item("ServiceAccount", sa.name, { namespace: sa.namespace }) : item("User", user));
  }
  for (const group of headers["impersonate-group"] ?? []) items.push(item("Group", group));
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    const key = unescapeKey(header.slice(EXTRA_PREFIX.length).toLowerCase());
    for (const value of values ?? []) items.push(item("UserExtra", value, { apiVersion: `${AUTHENTICATION}/v1`, fieldPath: key }));
  }
  const uid = first("impersonate-uid");
  if (uid) items.push(item("UID", uid, { apiVersion: `${AUTHENTICATION}/v1` }));
  if (!user && items.length) throw internalError(`requested [${items.map(goValue).join(" ")}] without impersonating a user`);
  return items;
}

function attributesOf(i: Item): ResourceAttributes {
  const a = { kind: "resource", verb: "impersonate", version: "", namespace: i.namespace, name: i.name, subresource: "" } as const;
  switch (i.kind) {
    case "User":
      return { ...a, group: "", resource: "users" };
    case "ServiceAccount":
      return { ...a, group: "", resource: "serviceaccounts" };
    case "Group":
      return { ...a, group: "", resource: "groups" };
    case "UserExtra":
      return { ...a, group: AUTHENTICATION, version: "v1", resource: "userextras", subresource: i.fieldPath };
    case "UID":
      return { ...a, group: AUTHENTICATION, version: "v1", resource: "uids" };
  }
}

/**
 * The user a request acts as: the requester when no impersonation header is present, else the
 * impersonated user. `refuse` builds the 403 for the first item the authorizer denies.
 */
export async function impersonate(
  requester: User,
  headers: DistinctHeaders,
  authorizer: Authorizer,
  refuse: (requester: User, a: ResourceAttributes, reason: string) => Error,
): Promise<User> {
  const items = itemsOf(headers);
  if (!items.length) return requester;
  const groupsSpecified = (headers["impersonate-group"] ?? []).length > 0;
  let username = "";
  let uid = "";
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const i of items) {
    const a = attributesOf(i);
    const decision = await authorizer.authorize(requester, a);
    if (!decision.allowed) throw refuse(requester, a, decision.reason);
    if (i.kind === "User") username = i.name;
    else if (i.kind === "ServiceAccount") {
      username = `${SA_PREFIX}${i.namespace}:${i.name}`;
      if (!groupsSpecified) groups = ["system:serviceaccounts", `system:serviceaccounts:${i.namespace}`];
    } else if (i.kind === "Group") groups.push(i.name);
    else if (i.kind === "UserExtra") (extra[i.fieldPath] ??= []).push(i.name);
    else uid = i.name;
  }
  if (username !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  return { username, groups, ...(uid ? { uid } : {}), ...(Object.keys(extra).length ? { extra } : {}) };
}

/** The authorizer a server without authorization has (AlwaysAllow): everyone may do anything. */
export const ALWAYS_ALLOW: Authorizer = { authorize: async () => ({ allowed: true, reason: "" }) };

/** AlwaysAllow's rules (authorizerfactory/builtin.go): everything, complete. */
export const ALWAYS_ALLOW_RULES: RulesResolver = {
  resolveRules: async () => ({
    resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
    nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
    incomplete: false,
    evaluationError: "",
  }),
};
