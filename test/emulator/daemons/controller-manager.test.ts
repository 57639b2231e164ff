/** The emulated controller manager answers as doc3 "Endpoints" and "Authentication" say, per its command line. */
import type { X509Certificate } from "node:crypto";
import { connect } from "node:tls";
import { afterAll, describe, expect, it } from "vitest";
import { controllerManagerTarget, type ProbeResult, probeControllerManager } from "../../../lib/daemons/probes.js";
import { startEmulatedDaemons } from "../../../lib/emulator/daemons/index.js";
import { ALLOWED_TOKEN, bearer, client, controllerManagers, DENIED_TOKEN, get, TLS, WITH_FILES } from "./support.js";

const managers = controllerManagers();
afterAll(() => managers.closeAll());
const start = managers.start;

const failed = (rs: ProbeResult[]): string[] => rs.filter((r) => !r.ok).map((r) => `${r.rule} ${new URL(r.url).pathname}`);

describe("emulated controller manager", () => {
  it("serves HTTPS with the fixture certificate (CN localhost, SAN 127.0.0.1)", async () => {
    const url = new URL(await start({ args: WITH_FILES }));
    const cert = await new Promise<X509Certificate>((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port), ca: TLS.cert, servername: "localhost" }, () => {
        const peer = socket.getPeerX509Certificate();
        socket.end();
        if (peer) resolve(peer);
        else reject(new Error("no peer certificate"));
      });
      socket.on("error", reject);
    });
    expect(cert.subject).toBe("CN=localhost");
    expect(cert.subjectAltName).toContain("IP Address:127.0.0.1");
    await expect(get(`${url.origin.replace("https:", "http:")}/healthz`)).rejects.toThrow();
  });

  it("with both connection files: health paths to anyone; other paths 401 for an unknown token, 403 for anonymous and not-allowed users, 200 for allowed ones", async () => {
    const url = await start({ args: WITH_FILES });
    for (const path of ["/healthz", "/readyz", "/livez"]) {
      for (const headers of [{}, bearer(DENIED_TOKEN), bearer(ALLOWED_TOKEN)]) {
        expect(await get(`${url}${path}`, headers)).toMatchObject({ status: 200, body: "ok" });
      }
    }
    for (const path of ["/metrics", "/configz", "/debug/pprof/"]) {
      const anonymous = await get(`${url}${path}`);
      expect(anonymous.status, path).toBe(403);
      expect(JSON.parse(anonymous.body)).toMatchObject({
        kind: "Status",
        reason: "Forbidden",
        code: 403,
        message: `forbidden: User "system:anonymous" cannot get path "${path}"`,
      });
      const unknown = await get(`${url}${path}`, bearer("nobody-has-this"));
      expect(unknown.status, path).toBe(401);
      expect(JSON.parse(unknown.body)).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
      const denied = await get(`${url}${path}`, bearer(DENIED_TOKEN));
      expect(denied.status, path).toBe(403);
      expect(denied.body).toContain('User \\"bob\\"');
      expect((await get(`${url}${path}`, bearer(ALLOWED_TOKEN))).status, path).toBe(200);
    }
    expect((await get(`${url}/metrics`, bearer(ALLOWED_TOKEN))).body).toContain("tollgate_emulated_controller_manager 1");
    expect(JSON.parse((await get(`${url}/configz`, bearer(ALLOWED_TOKEN))).body)).toHaveProperty("componentconfig");
    expect((await get(`${url}/no-such-path`, bearer(ALLOWED_TOKEN))).status).toBe(404);
    // Authentication comes before the always-allow authorizer: a bad token is refused there too.
    expect((await get(`${url}/healthz`, bearer("nobody-has-this"))).status).toBe(401);
  });

  it("without --authentication-kubeconfig every token request is anonymous (doc3 Authentication 3)", async () => {
    const url = await start({ args: ["--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf"] });
    for (const headers of [{}, bearer("nobody-has-this"), bearer(ALLOWED_TOKEN)]) {
      const r = await get(`${url}/metrics`, headers);
      expect(r.status).toBe(403);
      expect(r.body).toContain("system:anonymous");
    }
    expect((await get(`${url}/healthz`, bearer("nobody-has-this"))).status).toBe(200);
  });

  it("without --authorization-kubeconfig everything off the always-allow paths is forbidden, even to an allowed user (doc3 Authentication 4)", async () => {
    const url = await start({ args: ["--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf"] });
    expect((await get(`${url}/metrics`, bearer(ALLOWED_TOKEN))).status).toBe(403);
    expect((await get(`${url}/configz`)).status).toBe(403);
    expect((await get(`${url}/readyz`)).status).toBe(200);
  });

  it("follows --authorization-always-allow-paths, with a trailing * as a prefix", async () => {
    const url = await start({ args: [...WITH_FILES, "--authorization-always-allow-paths=/healthz,/metrics,/debug/*"] });
    expect((await get(`${url}/metrics`)).status).toBe(200);
    expect((await get(`${url}/debug/pprof/`)).status).toBe(200);
    expect((await get(`${url}/healthz`)).status).toBe(200);
    expect((await get(`${url}/readyz`)).status).toBe(403);
    expect((await get(`${url}/configz`)).status).toBe(403);
  });

  it("serves /debug/pprof/ only with --profiling on", async () => {
    const off = await start({ args: [...WITH_FILES, "--profiling=false"] });
    expect((await get(`${off}/debug/pprof/`, bearer(ALLOWED_TOKEN))).status).toBe(404);
    const on = await start({ args: WITH_FILES });
    expect((await get(`${on}/debug/pprof/`, bearer(ALLOWED_TOKEN))).status).toBe(200);
  });

  it("serves nothing with --secure-port=0, and takes its port from --secure-port when the caller gives none", async () => {
    const d = await startEmulatedDaemons({ tls: TLS, controllerManager: { args: ["--secure-port=0"], port: 0 } });
    managers.track(d);
    expect(d.controllerManager?.url).toBeUndefined();
    expect(d.controllerManager?.config.securePort).toBe(0);
  });

  it("drops a leading program name", async () => {
    const d = await startEmulatedDaemons({
      tls: TLS,
      controllerManager: { args: ["/usr/local/bin/kube-controller-manager", ...WITH_FILES, "--profiling=false"], port: 0 },
    });
    managers.track(d);
    expect(d.controllerManager?.args).toEqual([...WITH_FILES, "--profiling=false"]);
    expect(d.controllerManager?.config.profiling).toBe(false);
  });

  it("passes the endpoint probes, with the target read from the same command line", async () => {
    const url = await start({ args: WITH_FILES });
    const target = { ...controllerManagerTarget("127.0.0.1", WITH_FILES)!, baseUrl: url };
    const rs = await probeControllerManager(client, target, { authorizedHeaders: bearer(ALLOWED_TOKEN) });
    expect(failed(rs)).toEqual([]);
    expect(new Set(rs.map((r) => r.rule))).toEqual(
      new Set(["doc3.endpoints.cm-health-paths-always-allowed", "doc3.endpoints.cm-https-secure-port", "doc3.endpoints.cm-pprof"]),
    );
  });
});

describe("emulated controller manager, wrong on purpose: the probes report the failure", () => {
  const target = (url: string) => ({ ...controllerManagerTarget("127.0.0.1", WITH_FILES)!, baseUrl: url });

  it("metrics-open: /metrics, /configz and /debug/pprof/ served without credentials", async () => {
    const url = await start({ args: WITH_FILES, faults: ["metrics-open"] });
    expect((await get(`${url}/metrics`)).status).toBe(200);
    const rs = await probeControllerManager(client, target(url));
    expect(failed(rs)).toEqual([
      "doc3.endpoints.cm-https-secure-port /metrics",
      "doc3.endpoints.cm-https-secure-port /configz",
      "doc3.endpoints.cm-https-secure-port /debug/pprof/",
    ]);
  });

  it("health-protected: the always-allow paths ask for authorization", async () => {
    const url = await start({ args: WITH_FILES, faults: ["health-protected"] });
    const rs = await probeControllerManager(client, target(url));
    expect(failed(rs)).toEqual([
      "doc3.endpoints.cm-health-paths-always-allowed /healthz",
      "doc3.endpoints.cm-health-paths-always-allowed /readyz",
      "doc3.endpoints.cm-health-paths-always-allowed /livez",
    ]);
    expect((await get(`${url}/healthz`, bearer(ALLOWED_TOKEN))).status).toBe(200);
  });

  it("pprof-missing: no profiling although --profiling is on", async () => {
    const url = await start({ args: WITH_FILES, faults: ["pprof-missing"] });
    const rs = await probeControllerManager(client, target(url), { authorizedHeaders: bearer(ALLOWED_TOKEN) });
    expect(failed(rs)).toEqual(["doc3.endpoints.cm-pprof /debug/pprof/"]);
  });

  it("tokens-without-authn-file: without --authentication-kubeconfig a token is still its user, not anonymous", async () => {
    const url = await start({ args: ["--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf"], faults: ["tokens-without-authn-file"] });
    expect((await get(`${url}/metrics`)).status).toBe(403);
    expect((await get(`${url}/metrics`, bearer(ALLOWED_TOKEN))).status).toBe(200);
    expect((await get(`${url}/metrics`, bearer("nobody-has-this"))).status).toBe(401);
  });

  it("allow-list-without-authz-file: without --authorization-kubeconfig the allow list still serves an allowed user", async () => {
    const url = await start({ args: ["--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf"], faults: ["allow-list-without-authz-file"] });
    expect((await get(`${url}/metrics`, bearer(ALLOWED_TOKEN))).status).toBe(200);
    expect((await get(`${url}/metrics`, bearer(DENIED_TOKEN))).status).toBe(403);
    expect((await get(`${url}/configz`)).status).toBe(403);
  });
});
