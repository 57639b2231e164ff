/**
 * Without auth the emulator still serves ServiceAccounts (their `token` subresource included),
 * RBAC and the default cluster roles, as a real server does whatever its authorizer: what
 * `kubectl create -f` of a manifest with a ServiceAccount, a Role and a RoleBinding, and
 * `kubectl create token`, need against `tollgate emulator` without --auth. Also the OpenAPI
 * facts kubectl reads for them (the TokenRequest schema, ServiceAccount.secrets keyed by name).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

describe("ServiceAccounts and RBAC without auth", () => {
  it("creates a ServiceAccount, a Role and a RoleBinding with no escalation check; issues a token a TokenReview recognises", async () => {
    const ns = uniq("noauth");
    expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
    const sa = await call("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "robot" } });
    expect(sa.status, sa.text).toBe(201);
    expect(sa.json).toMatchObject({ kind: "ServiceAccount", apiVersion: "v1", metadata: { name: "robot", namespace: ns } });
    // A role the caller need not hold, and a binding to a role that does not exist: nothing is checked.
    const role = await call("POST", `${RBAC}/namespaces/${ns}/roles`, {
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    });
    expect(role.status, role.text).toBe(201);
    const binding = await call("POST", `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: "robot-reads" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "absent" },
      subjects: [{ kind: "ServiceAccount", name: "robot", namespace: ns }],
    });
    expect(binding.status, binding.text).toBe(201);
    expect(binding.json.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "absent" });

    const tr = await call("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { spec: {} });
    expect(tr.status, tr.text).toBe(201);
    expect(tr.json).toMatchObject({ kind: "TokenRequest", apiVersion: "authentication.k8s.io/v1", spec: { expirationSeconds: 3600 } });
    const token: string = tr.json.status.token;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const review = await call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token } });
    expect(review.json.status).toMatchObject({
      authenticated: true,
      user: { username: `system:serviceaccount:${ns}:robot`, groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"] },
    });
    // The default policy is seeded as with auth.
    expect((await call("GET", `${RBAC}/clusterroles/cluster-admin`)).json.rules).toEqual([
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ]);
  });

  it("merges ServiceAccount.secrets by name in a strategic merge patch, as its Go markers say", async () => {
    const ns = uniq("noauth-smp");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    await call("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "robot" }, secrets: [{ name: "a" }] });
    const patched = await call(
      "PATCH",
      `/api/v1/namespaces/${ns}/serviceaccounts/robot`,
      { secrets: [{ name: "b" }] },
      { headers: { "content-type": "application/strategic-merge-patch+json" } },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.secrets).toEqual([{ name: "b" }, { name: "a" }]);
  });

  it("describes TokenRequest in the api/v1 OpenAPI document, with the real GVK on the token POST", async () => {
    const index = (await call("GET", "/openapi/v3")).json;
    const doc = (await call("GET", index.paths["api/v1"].serverRelativeURL)).json;
    const post = doc.paths["/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"].post;
    expect(JSON.stringify(post["x-kubernetes-group-version-kind"])).toBe('{"group":"authentication.k8s.io","kind":"TokenRequest","version":"v1"}');
    const schemas = doc.components.schemas;
    expect(schemas["io.k8s.api.authentication.v1.TokenRequest"]).toMatchObject({
      required: ["spec"],
      "x-kubernetes-group-version-kind": [{ group: "authentication.k8s.io", kind: "TokenRequest", version: "v1" }],
    });
    expect(schemas["io.k8s.api.authentication.v1.TokenRequestSpec"].properties.audiences["x-kubernetes-list-type"]).toBe("atomic");
    expect(schemas["io.k8s.api.core.v1.ServiceAccount"].properties.secrets).toMatchObject({
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "name",
    });
    expect(schemas["io.k8s.api.core.v1.LocalObjectReference"]["x-kubernetes-map-type"]).toBe("atomic");
  });
});
