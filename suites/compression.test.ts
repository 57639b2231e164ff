/** doc1 "Headers" and "Limits": gzip for large get and list responses when asked (gate APIResponseCompression, on by default). */
import { gunzipSync } from "node:zlib";
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { KubeList } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, useSuite } from "./support/conformance.js";

const suite = useSuite("compression");

describe("response compression", () => {
  check(
    {
      title: "a large list asked for with Accept-Encoding: gzip comes back gzip-compressed, and decompresses to the same list",
      rules: ["doc1.headers.gzip", "doc1.limits.response-compression", "doc1.versioning.cap-response-compression"],
      needs: ["response-compression"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      // Above the 128 KiB threshold real servers use before compressing.
      for (let i = 0; i < 5; i++) await session.client.create(t, ns, configMap(session.types, ns, `big-${i}`, { blob: "z".repeat(40 * 1024) }));
      const plain = await session.client.list(t, ns);
      const res = await session.client.raw("GET", resourcePath(t, ns), { headers: { "accept-encoding": "gzip" } });
      expect(res.code).toBe(200);
      expect(res.headers["content-encoding"]).toBe("gzip");
      expect(res.headers.vary ?? "").toMatch(/Accept-Encoding/i);
      const list = JSON.parse(gunzipSync(res.bytes).toString("utf8")) as KubeList;
      expect(list.items.map((i) => i.metadata.name)).toEqual(plain.items.map((i) => i.metadata.name));
      expect(res.bytes.length).toBeLessThan(50 * 1024);
      const uncompressed = await session.client.raw("GET", resourcePath(t, ns));
      expect(uncompressed.headers["content-encoding"], "no gzip unless asked").toBeUndefined();
    },
  );
});
