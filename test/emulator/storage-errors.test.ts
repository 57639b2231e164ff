/** Storage's read errors as Statuses: the wording follows the type's read path (watch cache or etcd) and the kind of read. */
import { describe, expect, it } from "vitest";
import { readError } from "../../lib/emulator/endpoints/handlers/storage-errors.js";
import {
  ContinueExpired,
  ContinueWithResourceVersion,
  InvalidContinue,
  ResourceVersionTooLarge,
  ResourceVersionTooOld,
} from "../../lib/emulator/storage/read-errors.js";

const cached = { watchCache: true };
const etcd = { watchCache: false };

describe("storage read errors as Statuses", () => {
  it("words a too-old watch by the read path, and a too-old list by etcd whatever the type (1.35's fallback)", () => {
    const e = new ResourceVersionTooOld(5, 1234);
    expect(readError(e, cached, "watch")?.status).toMatchObject({ code: 410, reason: "Expired", message: "too old resource version: 5 (1234)" });
    expect(readError(e, cached, "list")?.status).toMatchObject({
      code: 410,
      reason: "Expired",
      message: "The resourceVersion for the provided list is too old.",
    });
    expect(readError(e, etcd, "watch")?.status.message).toBe("The resourceVersion for the provided watch is too old.");
    expect(readError(e, etcd, "list")?.status.message).toBe("The resourceVersion for the provided list is too old.");
  });

  it("answers a too-large version with the 504 of every path, with a retry delay from the cacher only", () => {
    for (const path of [cached, etcd]) {
      expect(readError(new ResourceVersionTooLarge(99, 7), path, "get")?.status).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        code: 504,
        reason: "Timeout",
        message: "Timeout: Too large resource version: 99, current: 7",
        details: {
          causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
          ...(path === cached ? { retryAfterSeconds: 1 } : {}),
        },
      });
    }
  });

  it("hands out the fresh token of an expired continue for every type (a list falls back to etcd)", () => {
    const e = new ContinueExpired(12, "RESTART");
    for (const path of [cached, etcd]) {
      const status = readError(e, path, "list")?.status;
      expect(status).toMatchObject({ code: 410, reason: "Expired" });
      expect(status?.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
      expect(status?.metadata?.continue).toBe("RESTART");
    }
  });

  it("answers bad continue parameters with 400, and leaves other errors alone", () => {
    expect(readError(new InvalidContinue("continue key is not valid: x"), etcd, "list")?.status).toMatchObject({
      code: 400,
      message: "invalid continue token: continue key is not valid: x",
    });
    expect(readError(new ContinueWithResourceVersion("5"), etcd, "list")?.status.message).toBe(
      "specifying resource version is not allowed when using continue",
    );
    expect(readError(new Error("other"), etcd, "list")).toBeUndefined();
  });
});
