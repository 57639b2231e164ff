/**
 * core v1 Services and discovery.k8s.io/v1 EndpointSlices (registry/core/service,
 * registry/discovery): discovery entries, the `kubernetes` Service and its EndpointSlice,
 * ClusterIP allocation from 10.96.0.0/12 with the real 422 texts (taken, out of range),
 * release on delete, immutability, the v1 defaults, NodePorts, headless Services, the Tables
 * (JSON; protobuf is refused for a Table) and the protobuf forms; then, when kubectl is on PATH,
 * `cluster-info`, `get svc -A`, `get endpointslices` and `create service clusterip`.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEmulatorCommand } from "../../lib/cli/emulator.js";
import { UsageError } from "../../lib/cli/usage.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { decodeObject } from "../../lib/wire/protobuf/index.js";
import { kubectlOnPath } from "../support/kubectl.js";
import { client, uniq } from "./support.js";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const SLICES = "/apis/discovery.k8s.io/v1";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
let port: number;
const services = (): string => `/api/v1/namespaces/${ns}/services`;
const slices = (): string => `${SLICES}/namespaces/${ns}/endpointslices`;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  port = Number(new URL(emu.url).port);
  ns = uniq("svc");
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

/** An IPv4 address as a number. */
const ipNumber = (ip: string): number => ip.split(".").reduce((acc, p) => acc * 256 + Number(p), 0);
const service = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ metadata: { name }, spec });

describe("discovery", () => {
  it("lists services (svc, category all) with their status subresource, and discovery.k8s.io/v1 endpointslices", async () => {
    const core = (await call("GET", "/api/v1")).json.resources;
    expect(core.find((r: { name: string }) => r.name === "services")).toEqual({
      name: "services",
      singularName: "service",
      namespaced: true,
      kind: "Service",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["svc"],
      categories: ["all"],
      storageVersionHash: "0/CO1lhkEBI=",
    });
    expect(core.find((r: { name: string }) => r.name === "services/status")).toEqual({
      name: "services/status",
      singularName: "",
      namespaced: true,
      kind: "Service",
      verbs: ["get", "patch", "update"],
    });
    const discovery = (await call("GET", SLICES)).json;
    expect(discovery.resources).toEqual([
      {
        name: "endpointslices",
        singularName: "endpointslice",
        namespaced: true,
        kind: "EndpointSlice",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        storageVersionHash: "qgS0xkrxYAI=",
      },
    ]);
    const groups = (await call("GET", "/apis")).json.groups.map((g: { name: string }) => g.name);
    // A real server lists discovery.k8s.io after coordination.k8s.io.
    expect(groups.indexOf("discovery.k8s.io")).toBeGreaterThan(groups.indexOf("coordination.k8s.io"));
    const aggregated = (await call("GET", "/apis", undefined, { headers: { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" } }))
      .json;
    const group = aggregated.items.find((g: { metadata: { name: string } }) => g.metadata.name === "discovery.k8s.io");
    expect(group.versions[0].resources[0].resource).toBe("endpointslices");
  });
});

describe("the kubernetes Service and its EndpointSlice", () => {
  it("default/kubernetes: 10.96.0.1, port https 443 to the emulator's port, the apiserver labels", async () => {
    const svc = (await call("GET", "/api/v1/namespaces/default/services/kubernetes")).json;
    expect(svc.metadata.labels).toEqual({ component: "apiserver", provider: "kubernetes" });
    expect(svc.spec).toEqual({
      ports: [{ name: "https", protocol: "TCP", port: 443, targetPort: port }],
      clusterIP: "10.96.0.1",
      clusterIPs: ["10.96.0.1"],
      type: "ClusterIP",
      sessionAffinity: "None",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    });
    expect(svc.status).toEqual({ loadBalancer: {} });
    expect(svc.metadata.managedFields[0].manager).toBe("kube-apiserver");
  });

  it("its EndpointSlice: IPv4, one ready endpoint at 127.0.0.1, port https to the emulator's port; put back when deleted", async () => {
    const path = `${SLICES}/namespaces/default/endpointslices/kubernetes`;
    const slice = (await call("GET", path)).json;
    expect(slice.metadata.labels).toEqual({ "kubernetes.io/service-name": "kubernetes" });
    expect({ addressType: slice.addressType, endpoints: slice.endpoints, ports: slice.ports }).toEqual({
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "https", protocol: "TCP", port }],
    });
    expect((await call("DELETE", path)).status).toBe(200);
    let back: { status: number; json: { metadata: { uid: string }; ports: unknown } } | undefined;
    for (let i = 0; i < 100; i++) {
      back = await call("GET", path);
      if (back.status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(back?.status).toBe(200);
    expect(back?.json.metadata.uid).not.toBe(slice.metadata.uid);
    expect(back?.json.ports).toEqual([{ name: "https", protocol: "TCP", port }]);
  });
});

describe("ClusterIP allocation", () => {
  it("a minimal Service gets the v1 defaults and a free address of the upper part of 10.96.0.0/12", async () => {
    const r = await call("POST", services(), service("minimal", { selector: { app: "x" }, ports: [{ port: 80 }] }));
    expect(r.status).toBe(201);
    const spec = r.json.spec;
    expect(spec.ports).toEqual([{ protocol: "TCP", port: 80, targetPort: 80 }]);
    expect(spec).toMatchObject({
      type: "ClusterIP",
      sessionAffinity: "None",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    });
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    const n = ipNumber(spec.clusterIP);
    // Dynamic addresses come from past the first 256 (the static block), below the broadcast address.
    expect(n).toBeGreaterThan(ipNumber("10.96.1.0"));
    expect(n).toBeLessThan(ipNumber("10.111.255.255"));
    expect(r.json.status).toEqual({ loadBalancer: {} });
  });

  it("a requested free address is taken; asking for it again, or for one out of range, is 422 with the real texts; a delete releases it", async () => {
    const first = await call("POST", services(), service("fixed-a", { clusterIP: "10.96.0.50", ports: [{ port: 80 }] }));
    expect(first.status).toBe(201);
    expect(first.json.spec.clusterIPs).toEqual(["10.96.0.50"]);
    const taken = await call("POST", services(), service("fixed-b", { clusterIP: "10.96.0.50", ports: [{ port: 80 }] }));
    expect(taken.status).toBe(422);
    expect(taken.json.message).toBe(
      'Service "fixed-b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated',
    );
    expect(taken.json.details.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated',
        field: "spec.clusterIPs",
      },
    ]);
    const outside = await call("POST", services(), service("fixed-c", { clusterIP: "192.168.7.7", ports: [{ port: 80 }] }));
    expect(outside.status).toBe(422);
    expect(outside.json.message).toBe(
      'Service "fixed-c" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.7.7"}: failed to allocate IP 192.168.7.7: the provided network does not match the current range',
    );
    const network = await call("POST", services(), service("fixed-d", { clusterIP: "10.96.0.0", ports: [{ port: 80 }] }));
    expect(network.json.message).toContain("failed to allocate IP 10.96.0.0: provided IP 10.96.0.0 is not in the valid range");
    const kubernetes = await call("POST", services(), service("fixed-e", { clusterIP: "10.96.0.1", ports: [{ port: 80 }] }));
    expect(kubernetes.json.message).toContain("provided IP is already allocated");
    expect((await call("DELETE", `${services()}/fixed-a`)).status).toBe(200);
    const again = await call("POST", services(), service("fixed-b", { clusterIP: "10.96.0.50", ports: [{ port: 80 }] }));
    expect(again.status).toBe(201);
    // A dry run allocates nothing.
    const dry = await call("POST", `${services()}?dryRun=All`, service("fixed-f", { clusterIP: "10.96.0.51", ports: [{ port: 80 }] }));
    expect(dry.status).toBe(201);
    expect((await call("POST", services(), service("fixed-g", { clusterIP: "10.96.0.51", ports: [{ port: 80 }] }))).status).toBe(201);
  });

  it("clusterIP is immutable: an update that changes it is 422; one that leaves it out keeps it", async () => {
    const created = (await call("POST", services(), service("immutable", { selector: { app: "y" }, ports: [{ port: 80 }] }))).json;
    const ip = created.spec.clusterIP;
    const changed = await call("PUT", `${services()}/immutable`, { ...created, spec: { ...created.spec, clusterIP: "10.96.0.77" } });
    expect(changed.status).toBe(422);
    expect(changed.json.message).toBe('Service "immutable" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.77"}: may not change once set');
    // A resubmitted manifest without the allocated values keeps them (patchAllocatedValues).
    const resubmitted = await call("PUT", `${services()}/immutable`, service("immutable", { selector: { app: "z" }, ports: [{ port: 80 }] }));
    expect(resubmitted.status).toBe(200);
    expect(resubmitted.json.spec.clusterIP).toBe(ip);
    expect(resubmitted.json.spec.clusterIPs).toEqual([ip]);
    expect(resubmitted.json.spec.selector).toEqual({ app: "z" });
    const patched = await call(
      "PATCH",
      `${services()}/immutable`,
      { spec: { clusterIP: "10.96.0.78" } },
      { headers: { "content-type": "application/merge-patch+json" } },
    );
    expect(patched.status).toBe(422);
    expect(patched.json.message).toContain("may not change once set");
  });

  it("headless: clusterIP None is kept, with ipFamilyPolicy SingleStack when it has a selector and RequireDualStack without", async () => {
    const withSelector = (await call("POST", services(), service("headless", { clusterIP: "None", selector: { a: "b" }, ports: [{ port: 80 }] }))).json;
    expect(withSelector.spec).toMatchObject({ clusterIP: "None", clusterIPs: ["None"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" });
    const bare = await call("POST", services(), service("headless-bare", { clusterIP: "None" }));
    expect(bare.status).toBe(201);
    expect(bare.json.spec).toMatchObject({ clusterIP: "None", ipFamilies: ["IPv4", "IPv6"], ipFamilyPolicy: "RequireDualStack" });
  });

  it("NodePort: node ports from 30000-32767, a taken one is 422; ExternalName gets no address", async () => {
    const np = (await call("POST", services(), service("np", { type: "NodePort", ports: [{ port: 80 }] }))).json;
    expect(np.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(np.spec.ports[0].nodePort).toBeLessThanOrEqual(32767);
    expect(np.spec.externalTrafficPolicy).toBe("Cluster");
    const clash = await call("POST", services(), service("np2", { type: "NodePort", ports: [{ port: 81, nodePort: np.spec.ports[0].nodePort }] }));
    expect(clash.status).toBe(422);
    expect(clash.json.message).toBe(
      `Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: ${np.spec.ports[0].nodePort}: provided port is already allocated`,
    );
    const external = (await call("POST", services(), service("ext", { type: "ExternalName", externalName: "example.com" }))).json;
    expect(external.spec.clusterIP).toBeUndefined();
    expect(external.spec.ipFamilies).toBeUndefined();
  });

  it("server-side apply: ports are keyed by port and protocol (protocol defaulted), and a re-apply keeps the allocated address", async () => {
    const yaml = (target: number): string =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: applied\nspec:\n  selector:\n    app: a\n  ports:\n  - port: 80\n    targetPort: ${target}\n`;
    const headers = { "content-type": "application/apply-patch+yaml" };
    const first = await call("PATCH", `${services()}/applied?fieldManager=me`, undefined, { headers, raw: yaml(8080) });
    expect(first.status).toBe(201);
    expect(first.json.metadata.managedFields[0].fieldsV1["f:spec"]["f:ports"]).toHaveProperty(['k:{"port":80,"protocol":"TCP"}']);
    const second = await call("PATCH", `${services()}/applied?fieldManager=me`, undefined, { headers, raw: yaml(9090) });
    expect(second.status).toBe(200);
    expect(second.json.spec.ports).toEqual([{ protocol: "TCP", port: 80, targetPort: 9090 }]);
    expect(second.json.spec.clusterIP).toBe(first.json.spec.clusterIP);
  });

  it("validation: ports are required; a port's protocol must be supported", async () => {
    const r = await call("POST", services(), service("noports", {}));
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('Service "noports" is invalid: spec.ports: Required value');
    const bad = await call("POST", services(), service("badproto", { ports: [{ port: 80, protocol: "HTTP" }] }));
    expect(bad.json.message).toBe('Service "badproto" is invalid: spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"');
  });
});

describe("another service range", () => {
  it("--service-cluster-ip-range: the kubernetes Service takes its first address and Services are allocated inside it; a bad range is refused", async () => {
    const other = await startEmulator({ port: 0, serviceClusterIpRange: "172.20.0.0/28", namespaceContent: false });
    try {
      const c = client(other.url);
      expect((await c("GET", "/api/v1/namespaces/default/services/kubernetes")).json.spec.clusterIP).toBe("172.20.0.1");
      const ips: string[] = [];
      for (let i = 0; i < 3; i++)
        ips.push((await c("POST", "/api/v1/namespaces/default/services", service(`s${i}`, { ports: [{ port: 80 }] }))).json.spec.clusterIP);
      // A /28's static block is the whole range, so dynamic addresses come from the lower part, after 172.20.0.1.
      for (const ip of ips) expect(ipNumber(ip) - ipNumber("172.20.0.0")).toBeGreaterThan(1);
      for (const ip of ips) expect(ipNumber(ip) - ipNumber("172.20.0.0")).toBeLessThan(15);
      const out = await c("POST", "/api/v1/namespaces/default/services", service("out", { clusterIP: "10.96.0.10", ports: [{ port: 80 }] }));
      expect(out.json.message).toContain("failed to allocate IP 10.96.0.10: the provided network does not match the current range");
    } finally {
      await other.close();
    }
    await expect(startEmulator({ port: 0, serviceClusterIpRange: "10.0.0.0/8" })).rejects.toThrow(
      "specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12",
    );
    const parsed = parseEmulatorCommand(["--service-cluster-ip-range", "10.0.0.0/24"]);
    expect(parsed.api.serviceClusterIpRange).toBe("10.0.0.0/24");
    expect(() => parseEmulatorCommand(["--service-cluster-ip-range", "nonsense"])).toThrow(UsageError);
  });
});

describe("Tables", () => {
  it("services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, and SELECTOR at priority 1", async () => {
    const t = (await call("GET", "/api/v1/namespaces/default/services", undefined, { headers: { accept: TABLE } })).json;
    expect(t.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}/${c.priority}`)).toEqual([
      "Name/0",
      "Type/0",
      "Cluster-IP/0",
      "External-IP/0",
      "Port(s)/0",
      "Age/0",
      "Selector/1",
    ]);
    const row = t.rows.find((r: { cells: string[] }) => r.cells[0] === "kubernetes");
    expect(row.cells.slice(0, 5)).toEqual(["kubernetes", "ClusterIP", "10.96.0.1", "<none>", "443/TCP"]);
    expect(row.cells[6]).toBe("<none>");
    const np = (await call("GET", `${services()}?fieldSelector=metadata.name=np`, undefined, { headers: { accept: TABLE } })).json;
    expect(np.rows[0].cells[4]).toMatch(/^80:3\d{4}\/TCP$/);
    const ext = (await call("GET", `${services()}?fieldSelector=spec.type=ExternalName`, undefined, { headers: { accept: TABLE } })).json;
    expect(ext.rows.map((r: { cells: string[] }) => r.cells.slice(0, 5))).toEqual([["ext", "ExternalName", "<none>", "example.com", "<none>"]]);
  });

  it("LoadBalancer: <pending> until the status subresource writes an ingress, then the ingress before the externalIPs", async () => {
    const lb = (await call("POST", services(), service("lb", { type: "LoadBalancer", externalIPs: ["192.0.2.9"], ports: [{ port: 443 }] }))).json;
    expect(lb.spec.allocateLoadBalancerNodePorts).toBe(true);
    const row = async () =>
      (await call("GET", `${services()}?fieldSelector=metadata.name=lb`, undefined, { headers: { accept: TABLE } })).json.rows[0].cells[3];
    expect(await row()).toBe("192.0.2.9");
    const status = await call("PUT", `${services()}/lb/status`, {
      ...lb,
      spec: { type: "ClusterIP" },
      status: { loadBalancer: { ingress: [{ ip: "198.51.100.7" }] } },
    });
    expect(status.status).toBe(200);
    // A write through /status keeps the spec.
    expect(status.json.spec.type).toBe("LoadBalancer");
    expect(await row()).toBe("198.51.100.7,192.0.2.9");
    const noExternal = (await call("POST", services(), service("lb2", { type: "LoadBalancer", ports: [{ port: 443 }] }))).json;
    expect(noExternal.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect((await call("GET", `${services()}?fieldSelector=metadata.name=lb2`, undefined, { headers: { accept: TABLE } })).json.rows[0].cells[3]).toBe(
      "<pending>",
    );
  });

  it("endpointslices: NAME ADDRESSTYPE PORTS ENDPOINTS AGE; more than three is `+ N more...`", async () => {
    const created = await call("POST", slices(), {
      metadata: { name: "many" },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.0.0.1"] }, { addresses: ["10.0.0.2"] }, { addresses: ["10.0.0.3"] }, { addresses: ["10.0.0.4"] }],
      ports: [{ port: 80 }],
    });
    expect(created.status).toBe(201);
    const t = (await call("GET", slices(), undefined, { headers: { accept: TABLE } })).json;
    expect(t.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "AddressType", "Ports", "Endpoints", "Age"]);
    expect(t.rows[0].cells.slice(0, 4)).toEqual(["many", "IPv4", "80", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more..."]);
    const k = (await call("GET", `${SLICES}/namespaces/default/endpointslices`, undefined, { headers: { accept: TABLE } })).json;
    expect(k.rows.find((r: { cells: string[] }) => r.cells[0] === "kubernetes").cells.slice(0, 4)).toEqual(["kubernetes", "IPv4", String(port), "127.0.0.1"]);
  });

  it("a Table is never protobuf: as=Table with protobuf alone is 406", async () => {
    const r = await call("GET", "/api/v1/namespaces/default/services", undefined, { headers: { accept: `${PB};as=Table;v=v1;g=meta.k8s.io` } });
    expect(r.status).toBe(406);
  });
});

describe("protobuf and EndpointSlice writes", () => {
  it("a Service and an EndpointSlice read as protobuf decode to their JSON forms", async () => {
    for (const path of ["/api/v1/namespaces/default/services/kubernetes", `${SLICES}/namespaces/default/endpointslices/kubernetes`]) {
      const json = (await call("GET", path)).json;
      const res = await request(emu.url + path, { headers: { accept: PB } });
      expect(String(res.headers["content-type"])).toBe(PB);
      const decoded = decodeObject(new Uint8Array(await res.body.arrayBuffer()));
      expect(decoded).toEqual(json);
    }
  });

  it("an EndpointSlice gets port defaults and generation 1; a content change bumps it; addressType is immutable", async () => {
    const created = (
      await call("POST", slices(), { metadata: { name: "gen" }, addressType: "IPv4", endpoints: [{ addresses: ["10.1.0.1"] }], ports: [{ port: 8080 }] })
    ).json;
    expect(created.metadata.generation).toBe(1);
    expect(created.ports).toEqual([{ name: "", protocol: "TCP", port: 8080 }]);
    const labelled = (await call("PUT", `${slices()}/gen`, { ...created, metadata: { ...created.metadata, labels: { a: "b" } } })).json;
    expect(labelled.metadata.generation).toBe(1);
    const moved = (await call("PUT", `${slices()}/gen`, { ...labelled, endpoints: [{ addresses: ["10.1.0.2"] }] })).json;
    expect(moved.metadata.generation).toBe(2);
    const retyped = await call("PUT", `${slices()}/gen`, { ...moved, addressType: "FQDN", endpoints: [{ addresses: ["a.example"] }] });
    expect(retyped.status).toBe(422);
    expect(retyped.json.message).toBe('EndpointSlice.discovery.k8s.io "gen" is invalid: addressType: Invalid value: "FQDN": field is immutable');
    const bad = await call("POST", slices(), { metadata: { name: "bad" }, addressType: "IPv4", endpoints: [{ addresses: ["not-an-ip"] }], ports: [] });
    expect(bad.json.message).toBe(
      'EndpointSlice.discovery.k8s.io "bad" is invalid: endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IPv4 address',
    );
  });
});

const kubectl = kubectlOnPath("services");

describe.skipIf(!kubectl)("kubectl", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "tollgate-services-kubectl-"));
    writeFileSync(
      join(dir, "kubeconfig"),
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: e",
        `  cluster: {server: "${emu.url}"}`,
        "contexts:",
        "- name: e",
        "  context: {cluster: e}",
        "current-context: e",
        "",
      ].join("\n"),
    );
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const run = (args: string[]): Promise<{ code: number; out: string; err: string }> =>
    new Promise((resolve) => {
      execFile(
        kubectl as string,
        ["--cache-dir", join(dir, "cache"), ...args],
        { env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig") }, timeout: 60_000 },
        (error, out, err) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out, err }),
      );
    });

  it("cluster-info, get svc -A, get endpointslices and create service clusterip show the kubernetes rows and an allocated address", async () => {
    const [info, svcs, eps, created] = await Promise.all([
      run(["cluster-info"]),
      run(["get", "svc", "-A"]),
      run(["get", "endpointslices", "-n", "default"]),
      run(["create", "service", "clusterip", "kx", "--tcp=80:8080", "-n", ns]),
    ]);
    expect(info.code).toBe(0);
    expect(info.out).toContain(`Kubernetes control plane is running at ${emu.url}`);
    expect(svcs.code).toBe(0);
    expect(svcs.out).toMatch(/NAMESPACE +NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE/);
    expect(svcs.out).toMatch(/default +kubernetes +ClusterIP +10\.96\.0\.1 +<none> +443\/TCP/);
    expect(eps.code).toBe(0);
    expect(eps.out).toMatch(/NAME +ADDRESSTYPE +PORTS +ENDPOINTS +AGE/);
    expect(eps.out).toMatch(new RegExp(`kubernetes +IPv4 +${port} +127\\.0\\.0\\.1`));
    expect(created.code).toBe(0);
    expect(created.out).toContain("service/kx created");
    const wide = await run(["get", "svc", "kx", "-o", "wide", "-n", ns]);
    expect(wide.code).toBe(0);
    expect(wide.out).toMatch(/SELECTOR/);
    expect(wide.out).toMatch(/kx +ClusterIP +10\.(9[6-9]|10\d|11[01])\.\d+\.\d+ +<none> +80\/TCP +\S+ +app=kx/);
  }, 120_000);
});
