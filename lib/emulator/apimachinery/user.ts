/**
 * Who a request is made by (authentication/v1 UserInfo), and the well-known users and groups of
 * a real cluster: the anonymous user, the authenticated group, service account names.
 */

export interface User {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS_USER = "system:anonymous";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
export const AUTHENTICATED_GROUP = "system:authenticated";
/** The privileged group: allowed everything, before RBAC is asked (no reason given). */
export const MASTERS_GROUP = "system:masters";
const SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";
const SA_PREFIX = "system:serviceaccount:";

/** What an unauthenticated request is, when anonymous requests are allowed (the default). */
export const ANONYMOUS: User = { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };

/** The emulator's administrator, for its admin token. */
export const ADMIN_USER: User = { username: "tollgate-admin", groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_PREFIX}${namespace}:${name}`;
}

export function serviceAccountUser(namespace: string, name: string, uid: string, credentialId: string): User {
  return {
    username: serviceAccountUsername(namespace, name),
    uid,
    groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`, AUTHENTICATED_GROUP],
    extra: { "authentication.kubernetes.io/credential-id": [`JTI=${credentialId}`] },
  };
}

/** authentication/v1 UserInfo in Go field order, empty fields left out. */
export function userInfoJson(u: User): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.username) out["username"] = u.username;
  if (u.uid) out["uid"] = u.uid;
  if (u.groups.length) out["groups"] = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) out["extra"] = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return out;
}
