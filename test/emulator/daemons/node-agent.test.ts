/** The emulated node agent answers as doc3 "Endpoints", "Authentication" and "Limits" say, per its command line. */
import { createServer } from "node:http";
import { connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { type NodeAgentTargets, nodeAgentTargets, type ProbeResult, probeNodeAgent } from "../../../lib/daemons/probes.js";
import { capConnectionLifetime } from "../../../lib/emulator/daemons/http.js";
import {
  type EmulatedNodeAgentOptions,
  NODE_AGENT_MAX_CONNECTION_MS,
  type RunningEmulatedDaemons,
  type RunningNodeAgent,
  startEmulatedDaemons,
} from "../../../lib/emulator/daemons/index.js";
import { ACCESS, ALLOWED_TOKEN, bearer, client, DENIED_TOKEN, get, TLS } from "./support.js";

const running: RunningEmulatedDaemons[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.close()));
});

const FREE = { port: 0, readOnlyPort: 0, healthzPort: 0 };
const WEBHOOK = ["--authentication-token-webhook", "--authorization-mode=Webhook"];

async function start(nodeAgent: EmulatedNodeAgentOptions): Promise<RunningNodeAgent> {
  const d = await startEmulatedDaemons({ tls: TLS, access: ACCESS, nodeAgent: { ...FREE, ...nodeAgent } });
  running.push(d);
  if (!d.nodeAgent) throw new Error("no node agent");
  return d.nodeAgent;
}

/** The probes' targets: behaviour from the command line, servers where the emulation put them. */
const targetsOf = (a: RunningNodeAgent): NodeAgentTargets => ({
  ...nodeAgentTargets("127.0.0.1", a.args),
  mainUrl: a.url,
  readOnlyUrl: a.readOnlyUrl,
  healthzUrl: a.healthzUrl,
});
const failed = (rs: ProbeResult[]): string[] => rs.filter((r) => !r.ok).map((r) => r.rule);

describe("emulated node agent", () => {
  it("with doc3's defaults: HTTPS main server open to anonymous requests (AlwaysAllow), HTTP read-only and health servers", async () => {
    const a = await start({});
    expect(a.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(a.readOnlyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a.healthzUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await get(`${a.url}/healthz`)).toMatchObject({ status: 200, body: "ok" });
    const pods = await get(`${a.url}/pods`);
    expect(pods.status).toBe(200);
    expect(JSON.parse(pods.body)).toEqual({ kind: "PodList", apiVersion: "v1", metadata: {}, items: [] });
    const configz = JSON.parse((await get(`${a.url}/configz`)).body) as { kubeletconfig: Record<string, unknown> };
    expect(configz.kubeletconfig).toMatchObject({ authentication: { anonymous: { enabled: true } }, authorization: { mode: "AlwaysAllow" } });
    expect((await get(`${a.url}/nope`)).status).toBe(404);
    // AlwaysAllow: any authenticated-or-anonymous request is served; without the token webhook a token is not even looked at.
    expect((await get(`${a.url}/pods`, bearer("nobody-has-this"))).status).toBe(200);

    expect(await get(`${a.readOnlyUrl}/healthz`)).toMatchObject({ status: 200, body: "ok" });
    expect(JSON.parse((await get(`${a.readOnlyUrl}/pods`)).body)).toMatchObject({ kind: "PodList", items: [] });
    expect((await get(`${a.readOnlyUrl}/configz`)).status).toBe(404);

    expect(await get(`${a.healthzUrl}/healthz`)).toMatchObject({ status: 200, body: "ok" });
    expect((await get(`${a.healthzUrl}/pods`)).status).toBe(404);
  });

  it("--anonymous-auth=false: a request without credentials is 401 on the main server, the read-only server still answers", async () => {
    const a = await start({ args: ["--anonymous-auth=false"] });
    expect(await get(`${a.url}/pods`)).toMatchObject({ status: 401, body: "Unauthorized" });
    // No token authenticator (--authentication-token-webhook is off), so a token does not help.
    expect((await get(`${a.url}/pods`, bearer(ALLOWED_TOKEN))).status).toBe(401);
    expect((await get(`${a.readOnlyUrl}/pods`)).status).toBe(200);
  });

  it("Webhook with the token webhook: allowed 200, not allowed 403, unknown token 401, anonymous 403 as system:anonymous", async () => {
    const a = await start({ args: WEBHOOK });
    expect((await get(`${a.url}/pods`, bearer(ALLOWED_TOKEN))).status).toBe(200);
    expect(await get(`${a.url}/pods`, bearer(DENIED_TOKEN))).toMatchObject({
      status: 403,
      body: "Forbidden (user=bob, verb=get, resource=nodes, subresource=proxy)",
    });
    expect((await get(`${a.url}/pods`, bearer("nobody-has-this"))).status).toBe(401);
    expect(await get(`${a.url}/metrics`)).toMatchObject({
      status: 403,
      body: "Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=metrics)",
    });
    expect((await get(`${a.readOnlyUrl}/pods`)).status).toBe(200);
  });

  it("serves the debugging handlers with --enable-debugging-handlers, and answers 405 without", async () => {
    const on = await start({});
    expect((await get(`${on.url}/logs/`)).status).toBe(200);
    const off = await start({ args: ["--enable-debugging-handlers=false"] });
    expect(await get(`${off.url}/logs/`)).toMatchObject({ status: 405, body: "Debug endpoints are disabled.\n" });
    expect((await get(`${off.url}/exec/ns/pod/container`)).status).toBe(405);
  });

  it("turns servers off as the command line says: --read-only-port=0, --healthz-port=0, --enable-server=false", async () => {
    const a = await start({ args: ["--read-only-port=0", "--healthz-port=0"] });
    expect(a.readOnlyUrl).toBeUndefined();
    expect(a.healthzUrl).toBeUndefined();
    expect(a.url).toBeDefined();
    const b = await start({ args: ["--enable-server=false"] });
    expect(b.url).toBeUndefined();
    expect(b.readOnlyUrl).toBeDefined();
  });

  it("options a --config file would set take doc3's defaults (the emulation reads no file)", async () => {
    const a = await start({ args: ["--config=/var/lib/kubelet/config.yaml"] });
    expect(a.config).toMatchObject({ anonymousAuth: true, authorizationMode: "AlwaysAllow", readOnlyPort: 10255 });
    expect(a.readOnlyUrl).toBeDefined();
    expect(a.config).toEqual((await start({ args: [] })).config);
  });

  it("passes the endpoint probes with the defaults, with anonymous requests off, and with Webhook", async () => {
    for (const args of [[], ["--anonymous-auth=false"], WEBHOOK, [...WEBHOOK, "--anonymous-auth=false"]]) {
      const a = await start({ args });
      const rs = await probeNodeAgent(client, targetsOf(a), { readOnlyPath: "/pods", mainPath: "/pods" });
      expect(failed(rs), args.join(" ")).toEqual([]);
    }
  });
});

describe("emulated node agent, wrong on purpose: the probes report the failure", () => {
  it("read-only-auth: the read-only server asks for credentials", async () => {
    const a = await start({ faults: ["read-only-auth"] });
    expect(failed(await probeNodeAgent(client, targetsOf(a)))).toEqual(["doc3.auth.agent-read-only-no-auth"]);
  });

  it("healthz-not-ok: the health server answers 500", async () => {
    const a = await start({ faults: ["healthz-not-ok"] });
    expect(failed(await probeNodeAgent(client, targetsOf(a)))).toEqual(["doc3.endpoints.agent-healthz-server"]);
  });

  it("always-allow-refuses-configz: AlwaysAllow still forbids /configz, and nothing else; Webhook mode is unchanged", async () => {
    const a = await start({ faults: ["always-allow-refuses-configz"] });
    expect((await get(`${a.url}/configz`)).status).toBe(403);
    expect((await get(`${a.url}/pods`)).status).toBe(200);
    const webhook = await start({ args: WEBHOOK, faults: ["always-allow-refuses-configz"] });
    expect((await get(`${webhook.url}/configz`, bearer(ALLOWED_TOKEN))).status).toBe(200);
  });

  it("no main server where one should be", async () => {
    const a = await start({});
    const rs = await probeNodeAgent(client, { ...targetsOf(a), mainUrl: "https://127.0.0.1:1" });
    expect(failed(rs)).toEqual(["doc3.endpoints.agent-main-server", "doc3.auth.agent-anonymous-default", "doc3.auth.agent-always-allow-default"]);
  });

  it("a node agent started otherwise than its command line says (anonymous off, told on)", async () => {
    const a = await start({ args: ["--anonymous-auth=false"] });
    const told = { ...targetsOf(a), anonymousAuth: true };
    expect(failed(await probeNodeAgent(client, told))).toEqual(["doc3.auth.agent-anonymous-default", "doc3.auth.agent-always-allow-default"]);
  });
});

describe("doc3 Limits: connections to the node agent last at most 4 hours", () => {
  it("is 4 hours by default", async () => {
    expect(NODE_AGENT_MAX_CONNECTION_MS).toBe(4 * 60 * 60 * 1000);
    expect((await start({})).maxConnectionMs).toBe(NODE_AGENT_MAX_CONNECTION_MS);
  });

  it("lets one request last as long (Node would cut it after 5 minutes)", () => {
    const server = createServer();
    capConnectionLifetime(server, NODE_AGENT_MAX_CONNECTION_MS);
    expect(server.requestTimeout).toBe(NODE_AGENT_MAX_CONNECTION_MS);
  });

  it("ends a connection at the cap even while it is busy (shown with a cap of 300 ms)", async () => {
    const a = await start({ maxConnectionMs: 300 });
    const { hostname, port } = new URL(a.readOnlyUrl as string);
    const started = Date.now();
    let answers = 0;
    const closedAfter = await new Promise<number>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        // Keep the connection busy: a request every 50 ms, so no idle timeout can be what ends it.
        const tick = setInterval(() => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), 50);
        socket.on("close", () => {
          clearInterval(tick);
          resolve(Date.now() - started);
        });
      });
      socket.on("data", (d: Buffer) => (answers += d.toString().split("HTTP/1.1 200").length - 1));
      // Ended by the server: a reset (unread requests) is as good as a close.
      socket.on("error", () => {});
    });
    expect(answers).toBeGreaterThan(0);
    expect(closedAfter).toBeGreaterThanOrEqual(250);
    expect(closedAfter).toBeLessThan(3000);
  });
});
