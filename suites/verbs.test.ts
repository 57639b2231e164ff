/**
 * doc1 "Verbs": almost every object type takes GET, POST, PUT, PATCH and DELETE. Read from the
 * target's discovery documents (every group's preferred version), so it holds for whatever the
 * target serves; "almost all" is taken as at least two thirds of the object types (on a real
 * 1.35 cluster the exceptions are the virtual create-only reviews, bindings and a few read-only types).
 */
import { describe, expect } from "vitest";
import { check, useSuite } from "./support/conformance.js";

const suite = useSuite("verbs");

interface ApiResource {
  name: string;
  verbs: string[];
}

async function resourcesOf(path: string): Promise<ApiResource[]> {
  const res = await suite.session.client.raw("GET", path);
  expect(res.code, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
  return ((res.json as { resources?: ApiResource[] }).resources ?? []).filter((r) => !r.name.includes("/"));
}

describe("verbs across the served types", () => {
  check(
    { title: "almost all object types list get, create, update, patch and delete in discovery", rules: ["doc1.verbs.most-types-all-methods"] },
    async () => {
      const paths = ["/api/v1"];
      const groups = await suite.session.client.raw("GET", "/apis");
      expect(groups.code).toBe(200);
      for (const g of (groups.json as { groups?: { preferredVersion?: { groupVersion?: string } }[] }).groups ?? []) {
        if (g.preferredVersion?.groupVersion) paths.push(`/apis/${g.preferredVersion.groupVersion}`);
      }
      const all: { type: string; verbs: string[] }[] = [];
      for (const p of paths) for (const r of await resourcesOf(p)) all.push({ type: `${p} ${r.name}`, verbs: r.verbs });
      expect(all.length, "the target serves object types").toBeGreaterThan(0);
      const full = all.filter((r) => ["get", "create", "update", "patch", "delete"].every((v) => r.verbs.includes(v)));
      const lacking = all.filter((r) => !full.includes(r)).map((r) => `${r.type} [${r.verbs.join(",")}]`);
      expect(full.length / all.length, `types without all five verbs: ${lacking.join("; ")}`).toBeGreaterThanOrEqual(2 / 3);
    },
  );

  check(
    {
      title: "proxy is a verb of one named object: a `<type>/proxy` subresource, never a collection-wide type",
      rules: ["doc1.verbs.proxy-single"],
      needs: ["proxy-subresource"],
    },
    async () => {
      const res = await suite.session.client.raw("GET", "/api/v1");
      expect(res.code).toBe(200);
      const names = ((res.json as { resources?: ApiResource[] }).resources ?? []).map((r) => r.name);
      const proxies = names.filter((n) => n === "proxy" || n.endsWith("/proxy"));
      expect(proxies.length, "the detection saw a proxy subresource in /api/v1").toBeGreaterThan(0);
      for (const p of proxies) expect(p, "proxy sits below one object of a type").toMatch(/^[a-z0-9]+\/proxy$/);
    },
  );

  check({ title: "the target reports release 1.35, the one whose behaviour the suites check", rules: ["doc1.service.release-1-35"] }, async () => {
    const res = await suite.session.client.raw("GET", "/version");
    expect(res.code, res.text.slice(0, 200)).toBe(200);
    const v = res.json as { major?: string; minor?: string; gitVersion?: string };
    expect(v.major, JSON.stringify(v)).toBe("1");
    expect(v.minor?.replace(/\+$/, ""), `gitVersion ${String(v.gitVersion)}: verdicts assume 1.35 behaviour`).toBe("35");
  });
});
