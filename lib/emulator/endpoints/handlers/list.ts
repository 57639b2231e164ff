/**
 * GET of a collection: items in key order (namespace/name), label and field selectors,
 * limit/continue paging with tokens that pin the first page's revision (the store rebuilds
 * that snapshot from its history; a compacted one, or a token older than the token lifetime,
 * is 410 Expired), and resourceVersion reads. The body is streamed item by item in JSON and
 * protobuf, so a large list costs memory per chunk written, not per list (respond.ts).
 */
import { ApiError, badRequest, details, expired } from "../../apimachinery/api-errors.js";
import { decodeContinue, encodeContinue, encodeContinueFrom, type ContinuePosition } from "../../storage/continue-token.js";
import { InvalidContinue } from "../../storage/read-errors.js";
import type { KubeObject } from "../../apimachinery/json.js";
import { objectFilter, parseResourceVersionParam, type ListOptions } from "../list-options.js";
import type { ResourceStrategy } from "../../registry/generic/strategy.js";
import { StoreError, type KeyValue } from "../../storage/store.js";
import { failure } from "../../../wire/status.js";
import type { RequestContext } from "./context.js";
import { writeList as writeListResponse, type ListSource } from "./respond.js";

export interface ListPage {
  /** The selected entries in key order. Decoded only when written: a page may be the whole store. */
  readonly kvs: readonly KeyValue[];
  readonly revision: number;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

function tooOld(strategy: ResourceStrategy, rv: number, oldest: number): ApiError {
  return expired(strategy.watchCache ? `too old resource version: ${rv} (${oldest})` : "The resourceVersion for the provided list is too old.");
}

/**
 * The 410 for a continue token whose snapshot is gone (wire-facts §9): types served from the
 * watch cache answer without a token; the others (storage path, events) hand out a fresh rv -1
 * token for the rest of the list at the latest state.
 */
function continueExpired(strategy: ResourceStrategy, position: ContinuePosition, prefix: string): ApiError {
  if (strategy.watchCache) return expired(`too old resource version: ${position.rv}`);
  return expired(CONTINUE_EXPIRED, { continue: encodeContinueFrom(position.startKey, prefix, -1) });
}

/** 504 Timeout for a version the store has not reached (the real server gives up after ~3 s). */
export function tooLargeResourceVersion(rv: number, current: number): ApiError {
  const message = `Too large resource version: ${rv}, current: ${current}`;
  return new ApiError(
    failure(504, "Timeout", `Timeout: ${message}`, {
      ...details({ causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] }),
      retryAfterSeconds: 1,
    }),
  );
}

/** Reads one page of the collection the route names. */
export function readPage(ctx: RequestContext, options: ListOptions): ListPage {
  const { strategy, namespace, allNamespaces } = ctx.route;
  const { storage, clock, settings, continueTokens } = ctx.parts;
  const store = storage.store;
  const prefix = storage.prefix(strategy, allNamespaces ? undefined : namespace);
  const filter = objectFilter(options, strategy);

  let revision: number | undefined;
  let position: ContinuePosition | undefined;
  const requestedRv = parseResourceVersionParam(options.resourceVersion);
  if (options.continueToken) {
    if (requestedRv !== undefined) throw badRequest("specifying resource version is not allowed when using continue");
    try {
      position = decodeContinue(options.continueToken, prefix, continueTokens);
    } catch (e) {
      if (e instanceof InvalidContinue) throw badRequest(`invalid continue token: ${e.message}`);
      throw e;
    }
    revision = position.rv > 0 ? position.rv : undefined;
    // An aged token goes the way of a compacted one: on a real server the two are the same event.
    const aged = position.issuedAt !== undefined && clock.now() - position.issuedAt > settings.continueTokenLifetimeMs;
    if (aged || (revision !== undefined && revision < store.compactRevision)) throw continueExpired(strategy, position, prefix);
  } else if (requestedRv !== undefined) {
    if (requestedRv > store.revision) throw tooLargeResourceVersion(requestedRv, store.revision);
    // An exact read: resourceVersionMatch=Exact, or a first page with limit (doc1 list table).
    if (options.resourceVersionMatch === "Exact" || (options.resourceVersionMatch === "" && options.limit > 0)) {
      if (requestedRv < store.compactRevision) throw tooOld(strategy, requestedRv, store.compactRevision);
      revision = requestedRv;
    }
  }
  if (revision !== undefined && revision > store.revision) throw tooLargeResourceVersion(revision, store.revision);

  let range;
  try {
    range = storage.range(strategy, allNamespaces ? undefined : namespace, { revision, startKey: position?.startKey });
  } catch (e) {
    if (!(e instanceof StoreError && e.code === "Compacted")) throw e;
    throw position ? continueExpired(strategy, position, prefix) : tooOld(strategy, revision ?? 0, store.compactRevision);
  }
  const kvs: KeyValue[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  for (const kv of range.kvs) storage.mustBeReadable(kv);
  for (const kv of range.kvs) {
    if (options.limit > 0 && kvs.length >= options.limit) {
      hasMore = true;
      break;
    }
    lastKey = kv.key;
    // Without selectors nothing needs decoding until the item is written.
    if (filter.empty || filter.matches(storage.decode(kv))) kvs.push(kv);
  }
  if (!hasMore || lastKey === undefined) return { kvs, revision: range.revision };
  return {
    kvs,
    revision: range.revision,
    continueToken: encodeContinue(lastKey, prefix, range.revision, { issuedAt: clock.now(), signer: continueTokens }),
    // Only without selectors: with them the count of matches ahead is unknown.
    remainingItemCount: filter.empty ? range.count - kvs.length : undefined,
  };
}

/** The page's objects, decoded one at a time. */
export function* pageItems(ctx: RequestContext, page: ListPage): Generator<KubeObject> {
  for (const kv of page.kvs) yield ctx.parts.storage.decode(kv);
}

/** The page's objects as JSON text, made one at a time as the writer pulls them. */
function* pageItemTexts(ctx: RequestContext, page: ListPage): Generator<string> {
  for (const kv of page.kvs) yield ctx.parts.storage.objectJson(kv);
}

/** The page as a list to write: its list metadata and lazily made items. */
export function pageSource(ctx: RequestContext, page: ListPage): ListSource {
  return {
    list: { resourceVersion: String(page.revision), continue: page.continueToken, remainingItemCount: page.remainingItemCount },
    itemTexts: () => pageItemTexts(ctx, page),
    items: () => pageItems(ctx, page),
  };
}

/** Writes the page as the list object (or its Table / metadata-only form), as negotiated. */
export function writeList(ctx: RequestContext, page: ListPage): Promise<void> {
  return writeListResponse(ctx, pageSource(ctx, page));
}

export function handleList(ctx: RequestContext, options: ListOptions): Promise<void> {
  return writeList(ctx, readPage(ctx, options));
}
