/**
 * doc1.field-validation.client-defaults: client tools may pick their own default validation level
 * (kubectl sends Strict). tollgate must not: its suites observe the server's default, so its
 * client sends fieldValidation only when a suite asks for it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { ApiClient } from "../../lib/harness/client.js";
import { resourceTypes } from "../../lib/harness/resources.js";
import { defaultSpecSettings } from "../../lib/harness/target.js";
import { clientDuty } from "../support/client-duty.js";

let server: Server;
let client: ApiClient;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? "");
    req.resume();
    req.on("end", () => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c", namespace: "n", resourceVersion: "5" } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  client = new ApiClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: {}, source: "test" });
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("tollgate's client and field validation", () => {
  clientDuty(
    {
      title: "sends no fieldValidation of its own on create, update and patch, and the level a suite asks for when it asks",
      rules: ["doc1.field-validation.client-defaults"],
    },
    async () => {
      const t = resourceTypes(defaultSpecSettings).configmaps;
      const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" } };
      seen.length = 0;
      await client.create(t, "n", obj);
      await client.update(t, "n", obj);
      await client.patch(t, "n", "c", { metadata: { labels: { a: "b" } } }, "application/merge-patch+json");
      expect(seen).toHaveLength(3);
      for (const url of seen) expect(new URL(url, "http://x").searchParams.has("fieldValidation"), url).toBe(false);
      await client.create(t, "n", obj, { fieldValidation: "Strict" });
      expect(new URL(seen[3] ?? "", "http://x").searchParams.get("fieldValidation")).toBe("Strict");
    },
  );
});

describe("tollgate's client passes resourceVersion back unmodified", () => {
  clientDuty({ title: "sends an update with exactly the version it read, whatever its form", rules: ["doc1.fields.rv-opaque-client"] }, async () => {
    const bodies: unknown[] = [];
    const srv = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (chunks.length) bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        res.writeHead(200, { "content-type": "application/json" });
        // An extension server's opaque, non-decimal version with leading zeros and padding.
        res.end(JSON.stringify({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c", namespace: "n", resourceVersion: "007 opaque+/=" } }));
      });
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const c = new ApiClient({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, credentials: {}, source: "test" });
    try {
      const t = resourceTypes(defaultSpecSettings).configmaps;
      const got = await c.get(t, "n", "c");
      await c.update(t, "n", got);
      expect((bodies[0] as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe("007 opaque+/=");
    } finally {
      await c.close();
      srv.closeAllConnections();
      srv.close();
    }
  });
});

describe("tollgate's client sends resourceVersionMatch with every list resourceVersion", () => {
  clientDuty(
    {
      title: "refuses a bare resourceVersion on a typed list before sending anything, and sends both when both are given",
      rules: ["doc1.query.rvm-client-always-set"],
    },
    async () => {
      const t = resourceTypes(defaultSpecSettings).configmaps;
      seen.length = 0;
      await expect(client.list(t, "n", { resourceVersion: "5" })).rejects.toThrow(/needs resourceVersionMatch/);
      expect(seen, "nothing was sent").toEqual([]);
      await client.list(t, "n", { resourceVersion: "5", resourceVersionMatch: "NotOlderThan" }).catch(() => undefined);
      const q = new URL(seen[0] ?? "", "http://x").searchParams;
      expect([q.get("resourceVersion"), q.get("resourceVersionMatch")]).toEqual(["5", "NotOlderThan"]);
    },
  );
});
