/**
 * The test-only admin endpoint, served only when the emulator is started with `admin: true`
 * (`tollgate emulator --admin`); otherwise its paths are the plain 404 of any unknown path, as
 * on a real server. It lets a conformance run reach the 410 cases in seconds instead of waiting
 * out a five-minute history window:
 *
 *   GET  /tollgate/admin          → {"compact":true,"clock":true,"corrupt":true}
 *   POST /tollgate/admin/compact  {} | {"revision":"N"} → {"compactedRevision":"N"}
 *   POST /tollgate/admin/clock    {"advanceSeconds":N}   → {"now":"<RFC 3339>"}
 *   POST /tollgate/admin/corrupt  {"path":"/api/v1/namespaces/x/configmaps/y"} → {"path":…,"resourceVersion":"N"}
 *
 * Compaction is etcd's: history up to the revision is dropped, later reads and watches need a
 * newer one. Advancing the clock moves the emulator's one clock, so retention-based compaction,
 * continue-token expiry, event expiry and new timestamps all see the jump. Marking an object
 * corrupt stands in for a stored value a real server cannot decrypt or decode (storage/object-storage.ts):
 * reads of it then fail with 500, and only the unsafe force delete removes it; namespaces cannot be
 * marked (the namespace controller must keep reading them). Bad bodies are 400 BadRequest; a path
 * naming no stored object is 404.
 *
 * Who may call it: with --auth, only users in system:masters (the admin token); anonymous or an
 * unknown token is 401, anyone else 403 (auth/access-control.ts). Without --auth it is open, as
 * everything else is: every caller may already delete or rewrite any object.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { badRequest, methodNotAllowed, notFound, pathNotFound } from "../apimachinery/api-errors.js";
import { ClockRangeError } from "../apimachinery/clock.js";
import { isJsonObject, type JsonObject } from "../apimachinery/json.js";
import { qualifiedResourceOf } from "../registry/generic/strategy.js";
import type { EmulatorParts } from "./handlers/context.js";
import { readBody, writeJson } from "./http-io.js";
import { route } from "./router.js";

export const ADMIN_PATH = "/tollgate/admin";

export interface AdminCapabilities {
  readonly compact: boolean;
  readonly clock: boolean;
  readonly corrupt: boolean;
}

const ADMIN_CAPABILITIES: AdminCapabilities = { compact: true, clock: true, corrupt: true };

export function isAdminPath(pathname: string): boolean {
  return pathname === ADMIN_PATH || pathname.startsWith(`${ADMIN_PATH}/`);
}

export interface AdminRequest {
  readonly parts: EmulatorParts;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly pathname: string;
  readonly pretty: boolean;
}

export async function handleAdmin(ctx: AdminRequest): Promise<void> {
  const { req, res, pretty } = ctx;
  const method = req.method ?? "GET";
  const action = ctx.pathname.slice(ADMIN_PATH.length).replace(/\/$/, "");
  if (action === "") {
    if (method !== "GET" && method !== "HEAD") throw methodNotAllowed();
    writeJson(res, 200, ADMIN_CAPABILITIES, { pretty });
    return;
  }
  if (action !== "/compact" && action !== "/clock" && action !== "/corrupt") throw pathNotFound();
  if (method !== "POST") throw methodNotAllowed();
  // The body is read as JSON whatever its Content-Type: this is a test hook, and `curl -d`
  // labels JSON as a form.
  const body = parseAdminBody(await readBody(req, ctx.parts.settings.maxRequestBodyBytes));
  const answer = await (action === "/compact" ? compact(ctx.parts, body) : action === "/clock" ? advanceClock(ctx.parts, body) : markCorrupt(ctx.parts, body));
  writeJson(res, 200, answer, { pretty });
}

function parseAdminBody(raw: Buffer): JsonObject {
  const text = raw.toString("utf8");
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`the admin request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isJsonObject(value)) throw badRequest("the admin request body must be a JSON object");
  return value;
}

function onlyKeys(body: JsonObject, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length) throw badRequest(`unknown field(s) in the admin request body: ${unknown.join(", ")} (allowed: ${allowed.join(", ")})`);
}

async function compact(parts: EmulatorParts, body: JsonObject): Promise<{ compactedRevision: string }> {
  onlyKeys(body, ["revision"]);
  const store = parts.storage.store;
  const requested = body["revision"];
  const current = await store.currentRevision();
  let revision = current;
  if (requested !== undefined) {
    if (typeof requested !== "string" || !/^[0-9]+$/.test(requested)) {
      throw badRequest(`revision must be a resourceVersion (a string of digits), not ${JSON.stringify(requested)}`);
    }
    revision = Number(requested);
    if (revision < 1) throw badRequest("revision must be at least 1");
    // etcd refuses to compact a revision it has not reached.
    if (revision > current) throw badRequest(`revision ${revision} is in the future (current revision ${current})`);
  }
  await store.compact(revision);
  // An older revision than the one already compacted is a no-op; the answer says where history starts now.
  return { compactedRevision: String(store.compactRevision) };
}

async function advanceClock(parts: EmulatorParts, body: JsonObject): Promise<{ now: string }> {
  onlyKeys(body, ["advanceSeconds"]);
  const seconds = body["advanceSeconds"];
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds <= 0) {
    throw badRequest(`advanceSeconds must be a number greater than 0, not ${JSON.stringify(seconds ?? null)}`);
  }
  try {
    parts.clock.advance(seconds * 1000);
  } catch (e) {
    if (e instanceof ClockRangeError) throw badRequest(`cannot advance the clock by ${seconds} seconds: ${e.message}`);
    throw e;
  }
  // Event TTLs and retention are measured on this clock: expire what the jump ended now, events
  // first (their deletes are new revisions), rather than at the next real-time check or store access.
  await parts.eventTtl.sweep({ evenIfNotLeader: true });
  parts.storage.store.applyRetention();
  return { now: parts.clock.date().toISOString() };
}

async function markCorrupt(parts: EmulatorParts, body: JsonObject): Promise<{ path: string; resourceVersion: string }> {
  onlyKeys(body, ["path"]);
  const path = body["path"];
  if (typeof path !== "string" || path === "") throw badRequest(`path must be the API path of one object, not ${JSON.stringify(path ?? null)}`);
  const r = route(path, parts.registry);
  if (r.kind !== "resource" || r.name === undefined || r.subresource !== undefined || r.watchPath) {
    throw badRequest(`path must be the API path of one object (such as /api/v1/namespaces/x/configmaps/y), not ${JSON.stringify(path)}`);
  }
  if (r.strategy.definesNamespace) throw badRequest("namespaces cannot be marked corrupt");
  const kv = await parts.storage.markCorrupt(parts.storage.key(r.strategy, r.namespace, r.name));
  if (!kv) throw notFound(qualifiedResourceOf(r.strategy), r.name);
  return { path, resourceVersion: String(kv.modRevision) };
}
