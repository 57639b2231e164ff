/**
 * GET of a collection: items in key order (namespace/name), label and field selectors,
 * limit/continue paging with tokens that pin the first page's revision (the store rebuilds
 * that snapshot from its history; a compacted one is 410 Expired), and resourceVersion reads.
 */
import { ApiError, badRequest, details, expired } from "../api-errors.js";
import { ContinueTokenError, decodeContinue, encodeContinue } from "../continue-token.js";
import { writeJson } from "../http-io.js";
import type { KubeObject } from "../json.js";
import { objectFilter, parseResourceVersionParam, type ListOptions } from "../list-options.js";
import { groupVersionOf, type ResourceStrategy } from "../resources.js";
import { StoreError } from "../store.js";
import { failure } from "../../wire/status.js";
import type { RequestContext } from "./context.js";

export interface ListPage {
  readonly items: KubeObject[];
  readonly revision: number;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

function tooOld(strategy: ResourceStrategy, rv: number, oldest: number): ApiError {
  return expired(strategy.watchCache ? `too old resource version: ${rv} (${oldest})` : "The resourceVersion for the provided list is too old.");
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
  const { storage } = ctx.parts;
  const store = storage.store;
  const prefix = storage.prefix(strategy, allNamespaces ? undefined : namespace);
  const filter = objectFilter(options, strategy);

  let revision: number | undefined;
  let startKey: string | undefined;
  const requestedRv = parseResourceVersionParam(options.resourceVersion);
  if (options.continueToken) {
    if (requestedRv !== undefined) throw badRequest("specifying resource version is not allowed when using continue");
    try {
      const position = decodeContinue(options.continueToken, prefix);
      startKey = position.startKey;
      revision = position.rv > 0 ? position.rv : undefined;
    } catch (e) {
      if (e instanceof ContinueTokenError) throw badRequest(`invalid continue token: ${e.message}`);
      throw e;
    }
    if (revision !== undefined && revision < store.compactRevision) {
      if (strategy.watchCache) throw expired(`too old resource version: ${revision}`);
      const fresh = encodeContinue(startKey.slice(0, -1), prefix, -1);
      throw expired(CONTINUE_EXPIRED, { continue: fresh });
    }
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
    range = store.range(prefix, { revision, startKey });
  } catch (e) {
    if (e instanceof StoreError && e.code === "Compacted") throw tooOld(strategy, revision ?? 0, store.compactRevision);
    throw e;
  }
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  for (const kv of range.kvs) {
    if (options.limit > 0 && items.length >= options.limit) {
      hasMore = true;
      break;
    }
    lastKey = kv.key;
    const o = storage.decode(kv);
    if (filter.matches(o)) items.push(o);
  }
  if (!hasMore || lastKey === undefined) return { items, revision: range.revision };
  return {
    items,
    revision: range.revision,
    continueToken: encodeContinue(lastKey, prefix, range.revision),
    // Only without selectors: with them the count of matches ahead is unknown.
    remainingItemCount: filter.empty ? range.count - items.length : undefined,
  };
}

export function listBody(strategy: ResourceStrategy, page: ListPage): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: String(page.revision) };
  if (page.continueToken) metadata["continue"] = page.continueToken;
  if (page.remainingItemCount !== undefined) metadata["remainingItemCount"] = page.remainingItemCount;
  return { kind: strategy.listKind, apiVersion: groupVersionOf(strategy), metadata, items: page.items };
}

export function handleList(ctx: RequestContext, options: ListOptions): void {
  writeJson(ctx.res, 200, listBody(ctx.route.strategy, readPage(ctx, options)), { pretty: ctx.pretty });
}
