/** First contact with a target: is it there, and what version does it say it is. */
import { ApiClient } from "./client.js";
import type { Target } from "./target.js";

export interface ServerInfo {
  /** gitVersion from /version, when the target answers it. */
  version?: string;
  /** The raw /version body. */
  versionInfo?: Record<string, unknown>;
}

/**
 * Throws UnreachableError when nothing answers. Any HTTP answer counts as reachable: a
 * target that refuses /version (401, 404) is still a target, it just has no version.
 */
export async function probeTarget(target: Target, timeoutMs = 10_000): Promise<ServerInfo> {
  const client = new ApiClient(target);
  try {
    const res = await client.raw("GET", "/version", { timeoutMs, bypassLimits: true });
    const body = res.json;
    if (res.code === 200 && typeof body === "object" && body !== null) {
      const info = body as Record<string, unknown>;
      return { version: typeof info.gitVersion === "string" ? info.gitVersion : undefined, versionInfo: info };
    }
    return {};
  } finally {
    await client.close();
  }
}
