/**
 * The emulated controller manager's /healthz lists a named check per controller it runs
 * (doc3.service.cm-control-loops), as a real 1.35 one does once it leads; and the probe of
 * lib/daemons/probes.ts passes against it and fails against the `core-loops-unchecked` fault.
 */
import { afterAll, describe, expect, it } from "vitest";
import { controllerManagerHealthChecks } from "../../../lib/daemons/controllers.js";
import { readOptionView } from "../../../lib/daemons/options/view.js";
import { checkControlLoops } from "../../../lib/daemons/probes.js";
import type { EmulatedControllerManagerOptions } from "../../../lib/emulator/daemons/index.js";
import { ALLOWED_TOKEN, bearer, controllerManagers, get, WITH_FILES } from "./support.js";

const managers = controllerManagers();
afterAll(() => managers.closeAll());
const start = managers.start;

const checkLines = (body: string): string[] => body.split("\n").filter((l) => l.startsWith("["));
const checks = (args: string[]): string[] => controllerManagerHealthChecks(readOptionView("controller-manager", args));

describe("which checks a command line gives", () => {
  it("by default: leaderElection first, then the on-by-default controllers that apply, no ping", () => {
    const c = checks([]);
    expect(c[0]).toBe("leaderElection");
    expect(c).toEqual(
      expect.arrayContaining([
        "namespace-controller",
        "replicationcontroller-controller",
        "endpoints-controller",
        "serviceaccount-controller",
        "garbage-collector-controller",
      ]),
    );
    // Disabled by default, needing a key file or --allocate-node-cidrs, or a cloud provider.
    for (const absent of [
      "ping",
      "bootstrap-signer-controller",
      "token-cleaner-controller",
      "serviceaccount-token-controller",
      "node-ipam-controller",
      "service-lb-controller",
      "node-route-controller",
      "cloud-node-lifecycle-controller",
    ]) {
      expect(c, absent).not.toContain(absent);
    }
  });

  it("follows --controllers: -name, pre-1.28 names, naming the disabled-by-default ones, no *", () => {
    expect(checks(["--controllers=*,-namespace-controller,-endpoint,bootstrapsigner"])).toEqual(
      expect.not.arrayContaining(["namespace-controller", "endpoints-controller"]),
    );
    expect(checks(["--controllers=*,bootstrapsigner"])).toContain("bootstrap-signer-controller");
    expect(checks(["--controllers=namespace-controller", "--leader-elect=false"])).toEqual(["namespace-controller"]);
    // The first entry naming a controller decides.
    expect(checks(["--controllers=-namespace-controller,namespace-controller", "--leader-elect=false"])).toEqual(["ping"]);
  });

  it("the token controller needs a key file and comes first among the controllers; node-ipam needs --allocate-node-cidrs", () => {
    const c = checks(["--service-account-private-key-file=/k.pem", "--allocate-node-cidrs", "--enable-garbage-collector=false"]);
    expect(c.slice(0, 2)).toEqual(["leaderElection", "serviceaccount-token-controller"]);
    expect(c).toContain("node-ipam-controller");
    expect(c).not.toContain("garbage-collector-controller");
  });
});

describe("emulated controller manager /healthz", () => {
  it("?verbose lists the checks, then `healthz check passed`; plain /healthz stays `ok`", async () => {
    const url = await start({ args: [...WITH_FILES, "--controllers=*,-serviceaccount-controller"] });
    const plain = await get(`${url}/healthz`);
    expect(plain).toMatchObject({ status: 200, body: "ok" });
    const verbose = await get(`${url}/healthz?verbose`);
    expect(verbose.status).toBe(200);
    expect(verbose.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(verbose.body.endsWith("healthz check passed\n")).toBe(true);
    const lines = checkLines(verbose.body);
    expect(lines[0]).toBe("[+]leaderElection ok");
    expect(lines).toEqual(expect.arrayContaining(["[+]namespace-controller ok", "[+]endpoints-controller ok", "[+]replicationcontroller-controller ok"]));
    expect(lines).not.toContain("[+]serviceaccount-controller ok");
    expect(lines).not.toContain("[+]ping ok");
    // /readyz and /livez are unchanged.
    expect(await get(`${url}/readyz?verbose`)).toMatchObject({ status: 200, body: "ok" });
  });

  it("?exclude= marks a check excluded and warns about names it does not have", async () => {
    const url = await start({ args: WITH_FILES });
    const r = await get(`${url}/healthz?verbose&exclude=namespace-controller&exclude=nothing-here`);
    expect(checkLines(r.body)).toContain("[+]namespace-controller excluded: ok");
    expect(r.body).toContain('warn: some health checks cannot be excluded: no matches for "nothing-here"\n');
  });

  it("/healthz/<check> is not served, as on a real one: 403 anonymous (not an always-allow path), 404 when authorized", async () => {
    const url = await start({ args: WITH_FILES });
    for (const path of ["/healthz/namespace-controller", "/healthz/no-such-check"]) {
      expect((await get(`${url}${path}`)).status, path).toBe(403);
      expect(await get(`${url}${path}`, bearer(ALLOWED_TOKEN))).toMatchObject({ status: 404, body: "404 page not found\n" });
    }
    // With a `*` pattern the sub-paths skip authorization, and are still not found.
    const open = await start({ args: [...WITH_FILES, "--authorization-always-allow-paths=/healthz,/healthz/*"] });
    expect((await get(`${open}/healthz/namespace-controller`)).status).toBe(404);
  });
});

describe("the control-loops probe against the emulated controller manager", () => {
  const probe = async (args: string[], told: string[], faults: EmulatedControllerManagerOptions["faults"] = []) => {
    const url = await start({ args, faults });
    return checkControlLoops(told, `${url}/healthz?verbose`, await get(`${url}/healthz?verbose`));
  };
  const failedOf = (p: Awaited<ReturnType<typeof probe>>): string[] =>
    p.kind === "results" ? p.results.filter((r) => !r.ok).map((r) => r.expected) : [`skipped: ${p.checks.join(",")}`];

  it("passes when the daemon runs what its command line says", async () => {
    const args = [...WITH_FILES, "--controllers=*,-namespace-controller,-ttl-controller"];
    const p = await probe(args, args);
    expect(p.kind).toBe("results");
    expect(failedOf(p)).toEqual([]);
    if (p.kind === "results") expect(p.results).toHaveLength(5); // three core loops listed, two disabled ones absent
  });

  it("fails when the core loops have no check (core-loops-unchecked)", async () => {
    const p = await probe(WITH_FILES, WITH_FILES, ["core-loops-unchecked"]);
    expect(failedOf(p)).toEqual([
      "a [+]replicationcontroller-controller check (--controllers enables it)",
      "a [+]endpoints-controller check (--controllers enables it)",
      "a [+]namespace-controller check (--controllers enables it)",
      "a [+]serviceaccount-controller check (--controllers enables it)",
    ]);
  });

  it("fails when a controller disabled by name still runs (the daemon was started without the -name)", async () => {
    const p = await probe(WITH_FILES, [...WITH_FILES, "--controllers=*,-endpoints-controller"]);
    expect(failedOf(p)).toEqual(["no endpoints-controller check (--controllers disables it)"]);
  });
});
