/**
 * kubectl against the emulator with validation on (plain http, a kubeconfig with the server URL
 * only): `explain` reads the OpenAPI v3 documents, `create -f` validates through them (it asks
 * for fieldValidation=Strict, so an unknown field is the server's strict decoding error), and
 * client-side `apply` builds its strategic merge patch from them. Skipped when no kubectl is on
 * PATH (the machines' one is gcloud's dispatcher, which runs its bundled kubectl 1.33).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { kubectlOnPath } from "../support/kubectl.js";
import { client } from "./support.js";

const kubectl = kubectlOnPath("openapi-kubectl");

let emu: RunningEmulator;
let dir: string;

beforeAll(async () => {
  if (!kubectl) return;
  emu = await startEmulator({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), "tollgate-openapi-kubectl-"));
  const kubeconfig = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: e`,
    `  cluster: {server: "${emu.url}"}`,
    "contexts:",
    "- name: e",
    "  context: {cluster: e}",
    "current-context: e",
    "",
  ].join("\n");
  writeFileSync(join(dir, "kubeconfig"), kubeconfig);
});

afterAll(async () => {
  if (!kubectl) return;
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      kubectl as string,
      ["--cache-dir", join(dir, "cache"), ...args],
      { env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig") }, timeout: 60_000 },
      (error, out, err) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out, err });
      },
    );
  });
}

function manifest(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}

describe.skipIf(!kubectl)("kubectl with validation on", () => {
  it("explain configmaps.data prints the field's type from the v3 document", async () => {
    const r = await run(["explain", "configmaps.data"]);
    expect(r.err).toBe("");
    expect(r.out).toContain("KIND:       ConfigMap");
    expect(r.out).toMatch(/FIELD: *data <map\[string\]string>/);
  }, 90_000);

  it("create -f validates and creates; an unknown field is refused by the server's strict decoding", async () => {
    const ok = await run([
      "create",
      "-f",
      manifest("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kubectl-cm, namespace: default}\ndata: {a: b}\n"),
    ]);
    expect([ok.code, ok.out.trim()]).toEqual([0, "configmap/kubectl-cm created"]);
    const bad = await run([
      "create",
      "-f",
      manifest("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kubectl-bad, namespace: default}\ndataz: {a: b}\n"),
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('strict decoding error: unknown field "dataz"');
  }, 90_000);

  it("client-side apply creates, then patches with the document's patch strategies; server-side apply and replace work", async () => {
    const call = client(emu.url);
    const first = await run([
      "apply",
      "-f",
      manifest(
        "applied.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kubectl-applied, namespace: default, finalizers: [example.com/a]}\ndata: {a: b}\n",
      ),
    ]);
    expect([first.code, first.out.trim()]).toEqual([0, "configmap/kubectl-applied created"]);
    // Another writer adds a finalizer; apply then adds one of its own. metadata.finalizers is a
    // merge list in the document (x-kubernetes-patch-strategy), so kubectl's patch keeps the other writer's.
    const other = await call(
      "PATCH",
      "/api/v1/namespaces/default/configmaps/kubectl-applied",
      { metadata: { finalizers: ["example.com/a", "example.com/other"] } },
      { headers: { "content-type": "application/merge-patch+json" } },
    );
    expect(other.status).toBe(200);
    const second = await run([
      "apply",
      "-f",
      manifest(
        "applied.yaml",
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kubectl-applied, namespace: default, finalizers: [example.com/a, example.com/c]}\ndata: {a: c, x: "z"}\n',
      ),
    ]);
    expect([second.code, second.out.trim()]).toEqual([0, "configmap/kubectl-applied configured"]);
    const applied = (await call("GET", "/api/v1/namespaces/default/configmaps/kubectl-applied")).json;
    expect(applied.data).toEqual({ a: "c", x: "z" });
    expect([...applied.metadata.finalizers].sort()).toEqual(["example.com/a", "example.com/c", "example.com/other"]);
    // Dropping example.com/c from the manifest: with the merge strategy kubectl sends a
    // $deleteFromPrimitiveList directive (without it, a whole list the server would merge, keeping c).
    const third = await run([
      "apply",
      "-f",
      manifest(
        "applied.yaml",
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kubectl-applied, namespace: default, finalizers: [example.com/a]}\ndata: {a: c, x: "z"}\n',
      ),
    ]);
    expect([third.code, third.out.trim()]).toEqual([0, "configmap/kubectl-applied configured"]);
    expect([...(await call("GET", "/api/v1/namespaces/default/configmaps/kubectl-applied")).json.metadata.finalizers].sort()).toEqual([
      "example.com/a",
      "example.com/other",
    ]);
    const ssa = await run([
      "apply",
      "--server-side",
      "-f",
      manifest("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kubectl-ssa, namespace: default}\ndata: {a: b}\n"),
    ]);
    expect([ssa.code, ssa.out.trim()]).toEqual([0, "configmap/kubectl-ssa serverside-applied"]);
    const replaced = await run([
      "replace",
      "-f",
      manifest("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kubectl-ssa, namespace: default}\ndata: {a: replaced}\n"),
    ]);
    expect([replaced.code, replaced.out.trim()]).toEqual([0, "configmap/kubectl-ssa replaced"]);
    expect((await call("GET", "/api/v1/namespaces/default/configmaps/kubectl-ssa")).json.data).toEqual({ a: "replaced" });
    await call(
      "PATCH",
      "/api/v1/namespaces/default/configmaps/kubectl-applied",
      { metadata: { finalizers: null } },
      { headers: { "content-type": "application/merge-patch+json" } },
    );
  }, 180_000);
  it("a CRD applied with kubectl publishes its schema: explain shows its descriptions, create -f validates custom resources", async () => {
    const crd = [
      "apiVersion: apiextensions.k8s.io/v1",
      "kind: CustomResourceDefinition",
      "metadata: {name: crontabs.kubectl.example.com}",
      "spec:",
      "  group: kubectl.example.com",
      "  scope: Namespaced",
      "  names: {plural: crontabs, singular: crontab, kind: CronTab}",
      "  versions:",
      "  - name: v1",
      "    served: true",
      "    storage: true",
      "    schema:",
      "      openAPIV3Schema:",
      "        type: object",
      "        properties:",
      "          spec: {type: object, description: the crontab's spec, properties: {cronSpec: {type: string, description: when it runs}}}",
      "",
    ].join("\n");
    const applied = await run(["apply", "-f", manifest("crd.yaml", crd)]);
    expect([applied.code, applied.out.trim()]).toEqual([0, "customresourcedefinition.apiextensions.k8s.io/crontabs.kubectl.example.com created"]);
    const explained = await run(["explain", "crontabs.spec"]);
    expect(explained.out).toContain("GROUP:      kubectl.example.com");
    expect(explained.out).toContain("the crontab's spec");
    expect(explained.out).toMatch(/cronSpec\t<string>\n +when it runs/);
    const created = await run([
      "create",
      "-f",
      manifest("ct.yaml", "apiVersion: kubectl.example.com/v1\nkind: CronTab\nmetadata: {name: c1, namespace: default}\nspec: {cronSpec: '* * * * */5'}\n"),
    ]);
    expect([created.code, created.out.trim()]).toEqual([0, "crontab.kubectl.example.com/c1 created"]);
    const bad = await run([
      "create",
      "-f",
      manifest("ct-bad.yaml", "apiVersion: kubectl.example.com/v1\nkind: CronTab\nmetadata: {name: c2, namespace: default}\nspec: {cronSpecz: x}\n"),
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('strict decoding error: unknown field "spec.cronSpecz"');
  }, 180_000);
});
