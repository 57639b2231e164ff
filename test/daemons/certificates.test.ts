/** The judges of suites/daemons/certificates.test.ts pass on the answers a real daemon gives and fail on wrong ones. */

import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PKI } from "../../fixtures/daemons/pki.js";
import { certificateCommonName, forbiddenUser, judgeHeadersIgnored, judgeRefused, judgeTakenFor } from "../../lib/daemons/client-certs.js";
import { extractedNames, sniExpectations } from "../../lib/daemons/sni.js";

const cmForbidden = (user: string): { status: number; body: string } => ({
  status: 403,
  body: JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `forbidden: User "${user}" cannot get path "/metrics"`,
    reason: "Forbidden",
    details: {},
    code: 403,
  }),
});
const agentForbidden = (user: string): { status: number; body: string } => ({
  status: 403,
  body: `Forbidden (user=${user}, verb=get, resource=nodes, subresource=proxy)`,
});
const ok = { status: 200, body: "ok" };
const unauthorized = { status: 401, body: "Unauthorized" };

describe("client certificate judges", () => {
  it("read the user a 403 names, on both daemons", () => {
    expect(forbiddenUser("controller-manager", cmForbidden("alice"))).toBe("alice");
    expect(forbiddenUser("node-agent", agentForbidden("alice"))).toBe("alice");
    expect(forbiddenUser("controller-manager", ok)).toBeUndefined();
    expect(forbiddenUser("controller-manager", { status: 403, body: "forbidden" })).toBeUndefined();
  });

  it("a certificate taken for its common name passes; taken as anonymous, as someone else or refused fails", () => {
    const anonymous = cmForbidden("system:anonymous");
    expect(judgeTakenFor("controller-manager", cmForbidden("cn"), anonymous, "cn").ok).toBe(true);
    expect(judgeTakenFor("controller-manager", ok, anonymous, "cn").ok).toBe(true);
    expect(judgeTakenFor("controller-manager", anonymous, anonymous, "cn").ok).toBe(false);
    expect(judgeTakenFor("controller-manager", cmForbidden("other"), anonymous, "cn").ok).toBe(false);
    expect(judgeTakenFor("controller-manager", unauthorized, anonymous, "cn").ok).toBe(false);
    expect(judgeTakenFor("node-agent", agentForbidden("cn"), agentForbidden("system:anonymous"), "cn").ok).toBe(true);
    expect(judgeTakenFor("node-agent", agentForbidden("system:anonymous"), agentForbidden("system:anonymous"), "cn").ok).toBe(false);
    // A 2xx shows nothing when anonymous requests are served as well.
    expect(judgeTakenFor("node-agent", ok, ok, "cn").ok).toBe(false);
  });

  it("an untrusted certificate must be 401, not anonymous or served", () => {
    expect(judgeRefused(unauthorized).ok).toBe(true);
    expect(judgeRefused(cmForbidden("system:anonymous")).ok).toBe(false);
    expect(judgeRefused(ok).ok).toBe(false);
  });

  it("headers that must not be trusted: the same answer passes; one for the header's user, or any other change, fails", () => {
    const without = cmForbidden("system:anonymous");
    expect(judgeHeadersIgnored("controller-manager", without, without, "h").ok).toBe(true);
    expect(judgeHeadersIgnored("controller-manager", unauthorized, unauthorized, "h").ok).toBe(true);
    expect(judgeHeadersIgnored("controller-manager", cmForbidden("h"), without, "h").ok).toBe(false);
    expect(judgeHeadersIgnored("controller-manager", ok, without, "h").ok).toBe(false);
    expect(judgeHeadersIgnored("controller-manager", cmForbidden("cn"), cmForbidden("other"), "h").ok).toBe(false);
  });

  it("read a certificate's common name", () => {
    expect(certificateCommonName(readFileSync(PKI.client.cert, "utf8"))).toBe("tollgate-cert-user");
  });
});

describe("SNI expectations", () => {
  const pem = (p: { cert: string }): string => readFileSync(p.cert, "utf8");
  const WILDCARD = { certPem: pem(PKI.sniWildcard), patterns: [] };
  const EXACT = { certPem: pem(PKI.sniExact), patterns: [] };
  const EXPLICIT = { certPem: pem(PKI.sniExplicit), patterns: ["extracted.sni.tollgate.test"] };

  it("take the common name and DNS names of a certificate, not an IP common name", () => {
    expect(extractedNames(new X509Certificate(EXACT.certPem))).toEqual(["exact.sni.tollgate.test", "exact.sni.tollgate.test", "extracted.sni.tollgate.test"]);
    expect(extractedNames(new X509Certificate(WILDCARD.certPem))).toEqual(["*.sni.tollgate.test", "*.sni.tollgate.test"]);
    // The daemons' own serving certificate: CN localhost, IP SANs left out.
    expect(extractedNames(new X509Certificate(readFileSync(new URL("../../fixtures/daemons/tls/cert.pem", import.meta.url), "utf8")))).toEqual([
      "localhost",
      "localhost",
    ]);
  });

  it("expect the exact entry over an earlier wildcard, and the explicit pattern over an earlier extracted name", () => {
    const byName = new Map(sniExpectations([WILDCARD, EXACT, EXPLICIT]).map((e) => [e.serverName, e]));
    expect(byName.get("exact.sni.tollgate.test")).toEqual({ serverName: "exact.sni.tollgate.test", entry: 1, shows: ["non-wildcard-over-wildcard"] });
    expect(byName.get("extracted.sni.tollgate.test")).toEqual({
      serverName: "extracted.sni.tollgate.test",
      entry: 2,
      shows: ["non-wildcard-over-wildcard", "explicit-over-extracted"],
    });
    expect(byName.get("tollgate-sni-probe.sni.tollgate.test")).toEqual({ serverName: "tollgate-sni-probe.sni.tollgate.test", entry: 0, shows: [] });
    // The explicit entry's own names are not its names.
    expect(byName.has("explicit.sni.tollgate.test")).toBe(false);
  });

  it("with the same kind of match, the earlier entry; with nothing in common, nothing to show", () => {
    const twice = sniExpectations([EXACT, { ...EXACT }]);
    expect(twice.find((e) => e.serverName === "exact.sni.tollgate.test")?.entry).toBe(0);
    expect(sniExpectations([EXACT]).every((e) => e.shows.length === 0)).toBe(true);
  });
});
