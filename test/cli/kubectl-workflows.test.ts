/**
 * Issue #16's acceptance: kubectl, with only the kubeconfig `tollgate emulator --kubeconfig-out`
 * writes and default flags (plus a fresh --cache-dir), runs the everyday workflows, with and
 * without --auth: create -f of a manifest with a Namespace, a ConfigMap, a ServiceAccount, a Role
 * and a RoleBinding; client-side apply twice (the last-applied annotation, a 3-way patch);
 * server-side apply (a conflict with the client-side manager, then --force-conflicts); replace;
 * edit; explain; auth whoami and can-i; create token; create sa/role/rolebinding/clusterrole;
 * get -w; delete -f (the namespace Terminating, then gone). Skipped when no kubectl is on PATH
 * (the machines' one is gcloud's dispatcher, which runs its bundled kubectl 1.33 for a 1.35 server).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlOnPath } from "../support/kubectl.js";

const BIN = fileURLToPath(new URL("../../bin/tollgate.js", import.meta.url));

const KUBECTL = kubectlOnPath("kubectl-workflows");

const DEMO = `apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: demo
data:
  color: blue
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: robot
  namespace: demo
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: cm-reader
  namespace: demo
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: robot-reads
  namespace: demo
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: cm-reader
subjects:
- kind: ServiceAccount
  name: robot
  namespace: demo
`;

const configMap = (name: string, data: Record<string, string>): string =>
  [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    `  name: ${name}`,
    "  namespace: demo",
    "data:",
    ...Object.entries(data).map(([k, v]) => `  ${k}: ${v}`),
    "",
  ].join("\n");

interface Run {
  code: number;
  out: string;
  err: string;
}

/** A kubectl left running (get -w): its output so far, waited on by pattern. */
interface Background {
  out: () => string;
  waitFor: (pattern: RegExp) => Promise<void>;
  stop: () => Promise<void>;
}

describe.skipIf(!KUBECTL).each([
  { mode: "without --auth", auth: false },
  { mode: "with --auth", auth: true },
])("kubectl workflows $mode", ({ auth }) => {
  // Made in beforeAll, so that a skipped run leaves nothing behind.
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let base: string[];
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  let emulator: ChildProcess;
  let banner = "";
  const background: ChildProcess[] = [];

  const kubectl = (args: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(KUBECTL as string, [...base, ...args], { env: { ...env, ...extraEnv }, timeout: 60_000 }, (e, out, err) =>
        resolve({ code: e ? (typeof e.code === "number" ? e.code : 1) : 0, out, err }),
      );
    });

  const watch = (args: string[]): Background => {
    const child = spawn(KUBECTL as string, [...base, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    background.push(child);
    let out = "";
    const waiters: { pattern: RegExp; resolve: () => void }[] = [];
    const onData = (d: string): void => {
      out += d;
      for (const w of waiters.splice(0))
        if (w.pattern.test(out)) w.resolve();
        else waiters.push(w);
    };
    child.stdout.setEncoding("utf8").on("data", onData);
    child.stderr.setEncoding("utf8").on("data", onData);
    return {
      out: () => out,
      waitFor: (pattern) =>
        new Promise((resolve, reject) => {
          if (pattern.test(out)) return resolve();
          const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${out}`)), 30_000);
          waiters.push({
            pattern,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        }),
      stop: async () => {
        if (child.exitCode !== null) return;
        child.kill("SIGTERM");
        await once(child, "exit");
      },
    };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tollgate-kubectl-"));
    const kubeconfig = join(dir, "kubeconfig");
    env = { ...process.env, KUBECONFIG: kubeconfig };
    base = ["--cache-dir", join(dir, "cache")];
    emulator = spawn(process.execPath, [BIN, "emulator", "--port", "0", ...(auth ? ["--auth"] : []), "--kubeconfig-out", kubeconfig], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    await new Promise<void>((resolve, reject) => {
      const onData = (d: string): void => {
        banner += d;
        if (/kubeconfig written to/.test(banner)) resolve();
      };
      emulator.stdout?.setEncoding("utf8").on("data", onData);
      emulator.stderr?.setEncoding("utf8").on("data", onData);
      emulator.once("exit", () => reject(new Error(`emulator exited early: ${banner}`)));
    });
  }, 120_000);

  afterAll(async () => {
    for (const child of background) if (child.exitCode === null) child.kill("SIGTERM");
    if (emulator.exitCode === null) {
      emulator.kill("SIGTERM");
      await once(emulator, "exit");
    }
    rmSync(dir, { recursive: true, force: true });
  });

  let cmWatch: Background;
  let nsWatch: Background;

  it("serves the scheme --auth asks for", () => {
    expect(banner).toMatch(auth ? /listening on https:\/\/127\.0\.0\.1:\d+/ : /listening on http:\/\/127\.0\.0\.1:\d+/);
  });

  it("create -f: a Namespace, a ConfigMap, a ServiceAccount, a Role and a RoleBinding", async () => {
    const r = await kubectl(["create", "-f", file("demo.yaml", DEMO)]);
    expect(r.err).toBe("");
    expect(r.out).toBe(
      [
        "namespace/demo created",
        "configmap/settings created",
        "serviceaccount/robot created",
        "role.rbac.authorization.k8s.io/cm-reader created",
        "rolebinding.rbac.authorization.k8s.io/robot-reads created",
        "",
      ].join("\n"),
    );
    // Watches from here on: the configmaps of demo, and demo itself.
    cmWatch = watch(["get", "cm", "-w", "-n", "demo", "--output-watch-events"]);
    nsWatch = watch(["get", "ns", "demo", "-w", "--output-watch-events"]);
    await cmWatch.waitFor(/^ADDED\s+settings\s/m);
    await nsWatch.waitFor(/^ADDED\s+demo\s+Active\s/m);
  }, 120_000);

  it("apply (client-side) twice, then --server-side: a conflict with the client-side manager, then --force-conflicts", async () => {
    const first = await kubectl(["apply", "-f", file("applied-1.yaml", configMap("applied", { color: "blue", size: "large" }))]);
    expect([first.out, first.err]).toEqual(["configmap/applied created\n", ""]);
    // The 3-way patch drops size (in the last-applied annotation, gone from the file) and changes color.
    const second = await kubectl(["apply", "-f", file("applied-2.yaml", configMap("applied", { color: "pink" }))]);
    expect([second.out, second.err]).toEqual(["configmap/applied configured\n", ""]);
    const ssa = file("applied-3.yaml", configMap("applied", { color: "green" }));
    const conflict = await kubectl(["apply", "--server-side", "-f", ssa]);
    expect(conflict.code).toBe(1);
    expect(conflict.err).toContain('error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.color\n');
    const forced = await kubectl(["apply", "--server-side", "--force-conflicts", "-f", ssa]);
    expect([forced.out, forced.err]).toEqual(["configmap/applied serverside-applied\n", ""]);
  }, 120_000);

  it("replace -f, then edit with EDITOR a script that rewrites the file", async () => {
    const replaced = await kubectl(["replace", "-f", file("replace.yaml", configMap("settings", { color: "replaced", mode: "strict" }))]);
    expect([replaced.out, replaced.err]).toEqual(["configmap/settings replaced\n", ""]);
    const editor = file("editor.sh", `#!/bin/sh\nsed -i 's/^  color: .*/  color: edited/' "$1"\n`);
    chmodSync(editor, 0o755);
    const edited = await kubectl(["edit", "cm", "settings", "-n", "demo"], { EDITOR: editor });
    expect([edited.out, edited.err]).toEqual(["configmap/settings edited\n", ""]);
  }, 120_000);

  it("shows every write in the objects and in the watch", async () => {
    const r = await kubectl(["get", "cm", "-n", "demo", "-o", "json", "--show-managed-fields"]);
    expect(r.err).toBe("");
    const items = JSON.parse(r.out).items as {
      metadata: { name: string; annotations?: Record<string, string>; managedFields: { manager: string; operation: string; fieldsV1: unknown }[] };
      data: Record<string, string>;
    }[];
    const byName = new Map(items.map((i) => [i.metadata.name, i]));
    expect(byName.get("settings")?.data).toEqual({ color: "edited", mode: "strict" });
    const applied = byName.get("applied");
    expect(applied?.data).toEqual({ color: "green" });
    // Left by the second client-side apply (server-side apply does not write it).
    expect(JSON.parse(applied?.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"] ?? "")).toEqual({
      apiVersion: "v1",
      data: { color: "pink" },
      kind: "ConfigMap",
      metadata: { annotations: {}, name: "applied", namespace: "demo" },
    });
    // After a forced server-side apply kubectl moves the client-side manager's fields to its own (a JSON patch of managedFields).
    const managers = applied?.metadata.managedFields ?? [];
    expect(managers.map((m) => m.manager)).not.toContain("kubectl-client-side-apply");
    expect(managers.find((m) => m.manager === "kubectl")).toMatchObject({ operation: "Apply", fieldsV1: { "f:data": { "f:color": {} } } });
    await cmWatch.waitFor(/^MODIFIED\s+settings\s+2\s/m);
    expect(cmWatch.out()).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE\n/);
    expect(cmWatch.out()).toMatch(/^ADDED\s+applied\s+2\s[\s\S]*^MODIFIED\s+applied\s+1\s/m);
  }, 120_000);

  it("explain, auth whoami, auth can-i (yes, no, --list, --as a ServiceAccount)", async () => {
    const [explain, whoami, canGet, canDelete, list] = await Promise.all([
      kubectl(["explain", "configmap.data"]),
      kubectl(["auth", "whoami"]),
      kubectl(["auth", "can-i", "get", "configmaps", "-n", "demo", "--as=system:serviceaccount:demo:robot"]),
      kubectl(["auth", "can-i", "delete", "configmaps", "-n", "demo", "--as=system:serviceaccount:demo:robot"]),
      kubectl(["auth", "can-i", "--list", "-n", "demo", "--as=system:serviceaccount:demo:robot"]),
    ]);
    expect(explain.out).toMatch(/^KIND: +ConfigMap\nVERSION: +v1\n\nFIELD: +data <map\[string\]string>\n/);
    // Without auth every caller is the emulator's administrator (AlwaysAllow); with it, the kubeconfig's token is.
    const user = auth ? "tollgate-admin" : "system:admin";
    expect(whoami.out).toMatch(new RegExp(`^ATTRIBUTE +VALUE\\nUsername +${user}\\nGroups +\\[system:masters system:authenticated\\]\\n$`));
    expect([canGet.code, canGet.out]).toEqual([0, "yes\n"]);
    if (auth) {
      // The RoleBinding grants get and list only.
      expect([canDelete.code, canDelete.out]).toEqual([1, "no\n"]);
      expect(list.out).toMatch(/^configmaps +\[\] +\[\] +\[get list\]$/m);
      expect(list.out).not.toMatch(/^\*\.\*/m);
    } else {
      expect([canDelete.code, canDelete.out]).toEqual([0, "yes\n"]);
      expect(list.out).toMatch(/^Resources +Non-Resource URLs +Resource Names +Verbs\n\*\.\* +\[\] +\[\] +\[\*\]\n +\[\*\] +\[\] +\[\*\]\n$/);
    }
  }, 120_000);

  it("create token; with --auth the token is the ServiceAccount's, bound by its Role and refused to impersonate", async () => {
    const token = await kubectl(["create", "token", "robot", "-n", "demo"]);
    expect([token.code, token.err]).toEqual([0, ""]);
    expect(token.out).toMatch(/^[0-9a-f]{64}$/);
    if (!auth) return;
    const [read, impersonate] = await Promise.all([
      kubectl(["--token", token.out, "get", "cm", "settings", "-n", "demo", "-o", "jsonpath={.data.color}"]),
      kubectl(["--token", token.out, "auth", "can-i", "get", "configmaps", "-n", "demo", "--as=system:serviceaccount:demo:other"]),
    ]);
    expect([read.out, read.err]).toEqual(["edited", ""]);
    expect(impersonate.code).toBe(1);
    expect(impersonate.err).toContain(
      'serviceaccounts "other" is forbidden: User "system:serviceaccount:demo:robot" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "demo"',
    );
  }, 120_000);

  it("create sa, role, rolebinding and clusterrole (typed clients, protobuf bodies)", async () => {
    const runs = await Promise.all([
      kubectl(["create", "sa", "builder", "-n", "demo"]),
      kubectl(["create", "role", "builder", "-n", "demo", "--verb=get", "--resource=configmaps"]),
      kubectl(["create", "rolebinding", "builder", "-n", "demo", "--role=builder", "--serviceaccount=demo:builder"]),
      kubectl(["create", "clusterrole", "ns-reader", "--verb=get,list", "--resource=namespaces"]),
    ]);
    expect(runs.map((r) => [r.out, r.err])).toEqual([
      ["serviceaccount/builder created\n", ""],
      ["role.rbac.authorization.k8s.io/builder created\n", ""],
      ["rolebinding.rbac.authorization.k8s.io/builder created\n", ""],
      ["clusterrole.rbac.authorization.k8s.io/ns-reader created\n", ""],
    ]);
  }, 120_000);

  it("delete -f of the manifest exits 0; the namespace is Terminating, then gone", async () => {
    const r = await kubectl(["delete", "-f", join(dir, "demo.yaml")]);
    expect([r.code, r.err]).toEqual([0, ""]);
    expect(r.out).toBe(
      [
        'namespace "demo" deleted',
        'configmap "settings" deleted',
        'serviceaccount "robot" deleted',
        'role.rbac.authorization.k8s.io "cm-reader" deleted',
        'rolebinding.rbac.authorization.k8s.io "robot-reads" deleted',
        "",
      ].join("\n"),
    );
    // kubectl waited until the namespace was gone, so the watch has seen it all.
    await nsWatch.waitFor(/^DELETED\s+demo\s/m);
    expect(nsWatch.out()).toMatch(/^MODIFIED\s+demo\s+Terminating\s[\s\S]*^DELETED\s+demo\s+Terminating\s/m);
    await cmWatch.waitFor(/^DELETED\s+applied\s/m);
    expect(cmWatch.out()).toMatch(/^DELETED\s+settings\s/m);
    await Promise.all([cmWatch.stop(), nsWatch.stop()]);
  }, 120_000);
});
