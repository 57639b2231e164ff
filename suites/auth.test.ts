/**
 * doc1 "Authentication" (and the authorization parts of "Path shapes" and "States and
 * transitions"). The suite makes a second identity inside its own namespace: a ServiceAccount,
 * a Role and a RoleBinding, and a token for it from the TokenRequest subresource; then it acts
 * with that token. Every test needs a target that authenticates and serves these types to an
 * identity that may create them (capabilities `authentication` and `rbac`, detected by the
 * runner); where it applies, a refusal while setting up is a failure. Real servers answer a
 * caller they know but do not allow with 403 Forbidden (wire-facts §4), a caller they do not know
 * with 401.
 */
import { afterAll, beforeAll, describe, expect } from "vitest";
import { configMap, event } from "../fixtures/objects.js";
import { ApiClient, type ApiResponse } from "../lib/harness/client.js";
import { asIdentity } from "../lib/harness/credentials/identity.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("auth");
const SA = "tollgate-limited";
const RBAC = "rbac.authorization.k8s.io";
const FORCE = "ignoreStoreReadErrorWithClusterBreakingPotential";

let limited: ApiClient | undefined;
let token = "";
let user = "";
/** A second namespace of the suite's, where the Role grants nothing. */
let elsewhere = "";
/** An Event the limited identity may patch but not update. */
let eventName = "";

const rbacPath = (kind: "roles" | "rolebindings", ns: string, name?: string): string => `/apis/${RBAC}/v1/namespaces/${ns}/${kind}${name ? `/${name}` : ""}`;

function clientWith(t: string): ApiClient {
  const target = suite.session.settings.target;
  return new ApiClient(asIdentity(target, t), { suite: "auth" });
}

async function post(path: string, body: unknown): Promise<ApiResponse> {
  return suite.session.client.raw("POST", path, { body });
}

/** A create the setup needs: anything but 201 is a failure of the run's setup on a target that offers these types. */
function created(res: ApiResponse, what: string): ApiResponse {
  expect(res.code, `creating ${what}: ${res.text.slice(0, 300)}`).toBe(201);
  return res;
}

beforeAll(async () => {
  const { session, ns } = suite;
  created(await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: SA } }), "serviceaccounts");
  const rules = [
    { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "delete"] },
    { apiGroups: [session.types.events.group], resources: ["events"], verbs: ["get", "patch"] },
  ];
  created(await post(rbacPath("roles", ns), { apiVersion: `${RBAC}/v1`, kind: "Role", metadata: { name: SA }, rules }), "roles");
  const binding = {
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name: SA },
    subjects: [{ kind: "ServiceAccount", name: SA, namespace: ns }],
    roleRef: { apiGroup: RBAC, kind: "Role", name: SA },
  };
  created(await post(rbacPath("rolebindings", ns), binding), "rolebindings");
  const tr = created(
    await post(`/api/v1/namespaces/${ns}/serviceaccounts/${SA}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 600 },
    }),
    "serviceaccounts/token",
  );
  token = (tr.json as { status?: { token?: string } }).status?.token ?? "";
  expect(token, "the TokenRequest answer carries status.token").not.toBe("");
  user = `system:serviceaccount:${ns}:${SA}`;
  limited = clientWith(token);
  elsewhere = await session.createNamespace("auth");
  eventName = (await session.client.create(session.types.events, ns, event(session.types, ns, uniqueName("ev")))).metadata.name as string;
  // A real cluster's authorizer sees new RBAC objects through an informer: wait until it does.
  for (let i = 0; i < 40; i++) {
    if ((await limited.raw("GET", resourcePath(session.types.configmaps, ns))).code === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the Role granted to ${user} did not take effect within 10 s`);
}, 30_000);

afterAll(async () => {
  await limited?.close();
});

/** The second identity, made in beforeAll (which runs only when a test of this file applies). */
function identity(): ApiClient {
  if (!limited) throw new Error("the suite's second identity was not set up");
  return limited;
}

const message = (res: ApiResponse): string => (res.json as { message?: string } | undefined)?.message ?? "";

function expectForbidden(res: ApiResponse, verb: string, resource: string, group: string, scope: string): void {
  expect(res.code, res.text.slice(0, 300)).toBe(403);
  expect(res.json).toMatchObject({ kind: "Status", status: "Failure", reason: "Forbidden", code: 403 });
  expect(message(res)).toContain(`User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${scope}`);
}

describe("authorization", () => {
  check(
    {
      title: "a known caller without permission gets 403 Forbidden naming the user, verb, resource, group and namespace",
      rules: ["doc1.auth.unauthorized-401"],
      needs: ["authentication", "rbac"],
    },
    async () => {
      const c = identity();
      const { session, ns } = suite;
      const res = await c.raw("POST", resourcePath(session.types.configmaps, ns), { body: configMap(session.types, ns, uniqueName("no")) });
      expectForbidden(res, "create", "configmaps", "", `in the namespace "${ns}"`);
    },
  );

  check(
    { title: "a rule grants exactly its listed verbs on its listed groups and resources", rules: ["doc1.auth.rule-shape"], needs: ["authentication", "rbac"] },
    async () => {
      const c = identity();
      const { session, ns } = suite;
      const cm = await session.client.create(session.types.configmaps, ns, configMap(session.types, ns, uniqueName("readable")));
      expect((await c.raw("GET", resourcePath(session.types.configmaps, ns, cm.metadata.name))).code, "get is listed").toBe(200);
      expect((await c.raw("GET", resourcePath(session.types.configmaps, ns))).code, "list is listed").toBe(200);
      const ev = resourcePath(session.types.events, ns, eventName);
      const patched = await c.raw("PATCH", ev, {
        rawBody: JSON.stringify({ metadata: { labels: { by: "limited" } } }),
        contentType: "application/merge-patch+json",
      });
      expect(patched.code, `patch is listed for events: ${patched.text.slice(0, 200)}`).toBe(200);
      const current = (patched.json ?? {}) as KubeObject;
      expectForbidden(await c.raw("PUT", ev, { body: current }), "update", "events", session.types.events.group, `in the namespace "${ns}"`);
      expectForbidden(await c.raw("GET", resourcePath(session.types.coreEvents, ns)), "list", "events", "", `in the namespace "${ns}"`);
    },
  );

  check(
    {
      title: "a Role of one namespace grants nothing in another namespace nor across namespaces",
      rules: ["doc1.auth.namespace-scope", "doc1.paths.namespace-scope-authz"],
      needs: ["authentication", "rbac"],
    },
    async () => {
      const c = identity();
      const { session } = suite;
      expectForbidden(await c.raw("GET", resourcePath(session.types.configmaps, elsewhere)), "list", "configmaps", "", `in the namespace "${elsewhere}"`);
      expectForbidden(await c.raw("GET", resourcePath(session.types.configmaps, undefined)), "list", "configmaps", "", "at the cluster scope");
    },
  );

  check(
    {
      title: "a dry-run needs the same permission as the real request: refused where the real one is, allowed where it is",
      rules: ["doc1.auth.dry-run-same-authz", "doc1.dry-run.nothing-persisted"],
      needs: ["authentication", "rbac"],
    },
    async () => {
      const c = identity();
      const { session, ns } = suite;
      const name = uniqueName("dry");
      const refused = await c.raw("POST", resourcePath(session.types.configmaps, ns), { body: configMap(session.types, ns, name), query: { dryRun: "All" } });
      expectForbidden(refused, "create", "configmaps", "", `in the namespace "${ns}"`);
      const cm = await session.client.create(session.types.configmaps, ns, configMap(session.types, ns, uniqueName("deletable")));
      const path = resourcePath(session.types.configmaps, ns, cm.metadata.name);
      const dryDelete = await c.raw("DELETE", path, { query: { dryRun: "All" } });
      expect(dryDelete.code, `delete is granted, so its dry-run is too: ${dryDelete.text.slice(0, 200)}`).toBe(200);
      expect((await session.client.raw("GET", path)).code, "and nothing was deleted").toBe(200);
    },
  );
});

describe("reviews", () => {
  check(
    {
      title: "a SubjectAccessReview answers whether a user may act, from the same rules; it has no name and cannot be read back",
      rules: ["doc1.auth.subject-access-review", "doc1.names.virtual-types-unnamed"],
      needs: ["authentication", "rbac", "subject-access-reviews"],
    },
    async () => {
      const { ns } = suite;
      const review = (verb: string) => ({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user,
          groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
          resourceAttributes: { namespace: ns, verb, group: "", resource: "configmaps" },
        },
      });
      const yes = await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review("get"));
      expect(yes.code, yes.text.slice(0, 300)).toBe(201);
      expect((yes.json as { status?: { allowed?: boolean } }).status?.allowed).toBe(true);
      expect((yes.json as KubeObject).metadata?.name ?? "", "a virtual object needs no name").toBe("");
      const no = await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", review("create"));
      expect((no.json as { status?: { allowed?: boolean } }).status?.allowed ?? false).toBe(false);
      const readBack = await suite.session.client.raw("GET", "/apis/authorization.k8s.io/v1/subjectaccessreviews");
      expect([404, 405], `a review is not retrievable: ${readBack.code}`).toContain(readBack.code);
    },
  );

  check(
    {
      title: "a TokenReview says whose a token is, and that a made-up one is no one's",
      rules: ["doc1.auth.token-review", "doc1.names.virtual-types-unnamed"],
      needs: ["authentication", "rbac", "token-reviews"],
    },
    async () => {
      const review = (t: string) => ({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: t } });
      const mine = await post("/apis/authentication.k8s.io/v1/tokenreviews", review(token));
      expect(mine.code, mine.text.slice(0, 300)).toBe(201);
      const status = (mine.json as { status?: { authenticated?: boolean; user?: { username?: string; groups?: string[] } } }).status;
      expect(status?.authenticated).toBe(true);
      expect(status?.user?.username).toBe(user);
      expect(status?.user?.groups).toEqual(expect.arrayContaining(["system:serviceaccounts", "system:authenticated"]));
      expect((mine.json as KubeObject).metadata?.name ?? "", "a virtual object needs no name").toBe("");
      const readBack = await suite.session.client.raw("GET", "/apis/authentication.k8s.io/v1/tokenreviews");
      expect([404, 405], `a review is not retrievable: ${readBack.code}`).toContain(readBack.code);
      const bogus = await post("/apis/authentication.k8s.io/v1/tokenreviews", review("tollgate-made-up-token"));
      expect(bogus.code).toBe(201);
      expect((bogus.json as { status?: { authenticated?: boolean } }).status?.authenticated ?? false).toBe(false);
    },
  );
});

describe("force deletion", () => {
  check(
    {
      title: "a forced delete needs unsafe-delete-ignore-read-errors besides delete",
      rules: ["doc1.auth.force-delete-verbs", "doc1.deletion.force-authz-both-verbs"],
      needs: ["authentication", "rbac", "force-delete"],
      timeout: 30_000,
    },
    async () => {
      const c = identity();
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const make = async (): Promise<string> =>
        resourcePath(t, ns, (await session.client.create(t, ns, configMap(session.types, ns, uniqueName("force")))).metadata.name);
      const force = (client: ApiClient, path: string): Promise<ApiResponse> =>
        client.raw("DELETE", path, { body: { kind: "DeleteOptions", apiVersion: "v1", [FORCE]: true } });
      const path = await make();
      const denied = await force(c, path);
      expect(denied.code, `delete alone does not allow a forced delete: ${denied.text.slice(0, 300)}`).toBe(403);
      expect(message(denied)).toContain("unsafe-delete-ignore-read-errors");
      expect((await session.client.raw("GET", path)).code, "nothing was deleted").toBe(200);
      // Grant the second verb, and the same request is no longer refused for authorization.
      await post(rbacPath("roles", ns), {
        apiVersion: `${RBAC}/v1`,
        kind: "Role",
        metadata: { name: `${SA}-unsafe` },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["unsafe-delete-ignore-read-errors"] }],
      });
      await post(rbacPath("rolebindings", ns), {
        apiVersion: `${RBAC}/v1`,
        kind: "RoleBinding",
        metadata: { name: `${SA}-unsafe` },
        subjects: [{ kind: "ServiceAccount", name: SA, namespace: ns }],
        roleRef: { apiGroup: RBAC, kind: "Role", name: `${SA}-unsafe` },
      });
      let after = await force(c, path);
      for (let i = 0; i < 40 && after.code === 403; i++) {
        await new Promise((r) => setTimeout(r, 250));
        after = await force(c, path);
      }
      expect(after.code, `with both verbs the forced delete passes authorization: ${after.text.slice(0, 300)}`).not.toBe(403);
    },
  );
});
