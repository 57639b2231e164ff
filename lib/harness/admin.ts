/**
 * Test-only shortcuts a target may offer (the emulator does when started with --admin):
 * compacting history and advancing the clock, so 410 cases run in seconds. The runner asks
 * once, before any test (lib/runner/detect.ts); tests that use a shortcut declare it in their
 * needs. Never needed against a real cluster.
 *
 * Contract: GET /tollgate/admin → 200 {"compact":true,"clock":true} when enabled (404 or 403,
 * as on a real cluster: not offered; an emulator with --auth also answers 401 or 403 to anyone
 * outside system:masters, so these calls go with the target's credentials, as every call does); POST /tollgate/admin/compact → {"compactedRevision":"N"}
 * (history older than the current revision is dropped); POST /tollgate/admin/clock with
 * {"advanceSeconds":N} → {"now":"<RFC 3339>"}. Optional, advertised as "corrupt":true: POST
 * /tollgate/admin/corrupt with {"path":"<API path of one object>"} makes that stored object
 * unreadable (as an undecryptable or undecodable value is on a real server) until it is rewritten
 * or removed.
 */
import type { ApiClient } from "./client.js";

export const ADMIN_PATH = "/tollgate/admin";

export interface AdminCapabilities {
  compact: boolean;
  clock: boolean;
  /** POST /tollgate/admin/corrupt is offered (absent from older targets: false). */
  corrupt: boolean;
}

export type AdminDetection =
  | ({ kind: "offered" } & AdminCapabilities)
  /** Not offered, as on a real cluster (404, or 403 for an identity that may not read unknown paths), or not to this identity (401, 403). */
  | { kind: "absent"; answer: string }
  /** An answer no real server gives to a path that names nothing (a 5xx, or a 200 that is not the contract). */
  | { kind: "wrong"; answer: string };

export async function detectAdmin(client: ApiClient): Promise<AdminDetection> {
  const res = await client.raw("GET", ADMIN_PATH);
  const answer = `${res.code}${res.text ? ` ${JSON.stringify(res.text.slice(0, 80))}` : ""}`;
  const body = res.json as Partial<AdminCapabilities> | undefined;
  if (res.code === 200 && typeof body === "object" && body !== null && !Array.isArray(body)) {
    return { kind: "offered", compact: body.compact === true, clock: body.clock === true, corrupt: body.corrupt === true };
  }
  if (res.code === 200 || res.code >= 500) return { kind: "wrong", answer };
  return { kind: "absent", answer };
}

/** Compacts the target's history up to its current revision; returns that revision. */
export async function compactHistory(client: ApiClient): Promise<string> {
  const body = await client.call<{ compactedRevision?: string }>("POST", `${ADMIN_PATH}/compact`, { body: {} });
  if (typeof body.compactedRevision !== "string") throw new Error(`admin compact answered without compactedRevision: ${JSON.stringify(body)}`);
  return body.compactedRevision;
}

export async function advanceClock(client: ApiClient, seconds: number): Promise<void> {
  await client.call("POST", `${ADMIN_PATH}/clock`, { body: { advanceSeconds: seconds } });
}

/** Makes the object at `path` (an API path such as /api/v1/namespaces/x/configmaps/y) unreadable on the target. */
export async function markCorrupt(client: ApiClient, path: string): Promise<void> {
  await client.call("POST", `${ADMIN_PATH}/corrupt`, { body: { path } });
}
