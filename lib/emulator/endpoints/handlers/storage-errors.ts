/**
 * Storage's read errors (storage/read-errors.ts) as the real server answers them: the one place
 * their wording lives. The text depends on the path a real server's read takes, which storage
 * does not know. A watch of a type served from the watch cache is answered by the cacher
 * (`too old resource version: N (M)`); the others (events, wire-facts §4) go to etcd, whose texts
 * name the list or the watch. A list never keeps the cacher's answer: since 1.34 (ListFromCacheSnapshot,
 * beta and on by default) a list the cache cannot serve at its version, an expired continue token's
 * included, falls back to etcd (apiserver's cacher delegator: ResourceExpired → storage GetList), so a
 * version below the compaction gets etcd's list text and an expired token comes back with a token for
 * the rest of the list (§9), for every type. A too-large version is a 504 for all, with a retry delay
 * from the cacher only.
 */
import { failure } from "../../../wire/status.js";
import { badRequest, details, expired, StatusError } from "../../apimachinery/api-errors.js";
import { goQuote } from "../../apimachinery/field-errors.js";
import {
  ContinueExpired,
  ContinueWithResourceVersion,
  InvalidContinue,
  InvalidResourceVersion,
  ResourceVersionTooLarge,
  ResourceVersionTooOld,
} from "../../storage/read-errors.js";

/** What of the type decides the wording: whether the real server serves it from the watch cache. */
export interface ReadPath {
  readonly watchCache: boolean;
}

/** The kind of read; etcd's too-old texts name it (a get reads the latest state and never meets compaction). */
export type ReadKind = "get" | "list" | "watch";

const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

function tooOld(error: ResourceVersionTooOld, path: ReadPath, kind: ReadKind): StatusError {
  if (kind !== "watch") return expired("The resourceVersion for the provided list is too old.");
  if (path.watchCache) return expired(`too old resource version: ${error.rv} (${error.oldest})`);
  return expired("The resourceVersion for the provided watch is too old.");
}

/**
 * 504 Timeout for a version the store has not reached (the real server gives up after ~3 s). The
 * cacher asks the client to retry in 1 s (retryAfterSeconds, hence Retry-After); etcd's list and
 * get pass 0, which the Status omits (apiserver@v0.35.7 storage/cacher/watch_cache.go,
 * storage/etcd3/store.go).
 */
function tooLarge(error: ResourceVersionTooLarge, path: ReadPath): StatusError {
  const message = `Too large resource version: ${error.rv}, current: ${error.current}`;
  return new StatusError(
    failure(504, "Timeout", `Timeout: ${message}`, {
      ...details({ causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] }),
      ...(path.watchCache ? { retryAfterSeconds: 1 } : {}),
    }),
  );
}

/**
 * A version that is no uint64 (wire-facts §11): storage's list validation wraps the versioner's
 * error in a 400, and so does etcd's get (events); a watch, and a get from the watch cache, pass
 * the bare error on, which the server answers as an unknown error, a 500 without a reason.
 */
function invalidResourceVersion(error: InvalidResourceVersion, path: ReadPath, kind: ReadKind): StatusError {
  const value = goQuote(error.value);
  const message = `resourceVersion: Invalid value: ${value}: strconv.ParseUint: parsing ${value}: ${error.reason}`;
  if (kind === "list" || (kind === "get" && !path.watchCache)) return badRequest(`invalid resource version: ${message}`);
  return new StatusError(failure(500, "", message));
}

/** Only lists carry continue tokens: etcd's answer whatever the type (see the head of this file). */
function continueExpired(error: ContinueExpired): StatusError {
  return expired(CONTINUE_EXPIRED, { continue: error.restart });
}

/**
 * The answer to an error a storage read threw, or undefined when it is not one of storage's read
 * errors (the handler then lets it go on as it is).
 */
export function readError(error: unknown, path: ReadPath, kind: ReadKind): StatusError | undefined {
  if (error instanceof ResourceVersionTooOld) return tooOld(error, path, kind);
  if (error instanceof ResourceVersionTooLarge) return tooLarge(error, path);
  if (error instanceof InvalidResourceVersion) return invalidResourceVersion(error, path, kind);
  if (error instanceof ContinueExpired) return continueExpired(error);
  if (error instanceof InvalidContinue) return badRequest(`invalid continue token: ${error.message}`);
  if (error instanceof ContinueWithResourceVersion) return badRequest("specifying resource version is not allowed when using continue");
  return undefined;
}
