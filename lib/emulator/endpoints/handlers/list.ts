/**
 * GET of a collection: the query's selectors, paging and resourceVersion handed to storage's read
 * rules (storage/reads.ts: items in key order, limit/continue paging with tokens that pin the first
 * page's revision, exact and not-older-than reads, expiry by compaction or token lifetime), and
 * its errors answered as a real server does (storage-errors.ts). The body is streamed item by item
 * in JSON and protobuf, so a large list costs memory per chunk written, not per list (respond.ts).
 */
import type { KubeObject } from "../../apimachinery/json.js";
import { type ListPage, readList } from "../../storage/reads.js";
import { type ListOptions, objectFilter, parseResourceVersionParam } from "../list-options.js";
import type { RequestContext } from "./context.js";
import { type ListSource, writeList as writeListResponse } from "./respond.js";
import { readError } from "./storage-errors.js";

/** Reads one page of the collection the route names. */
export function readPage(ctx: RequestContext, options: ListOptions): ListPage {
  const { strategy, namespace, allNamespaces } = ctx.route;
  const { storage, clock, settings, continueTokens } = ctx.parts;
  const filter = objectFilter(options, strategy);
  const resourceVersion = parseResourceVersionParam(options.resourceVersion);
  try {
    return readList(storage, {
      type: strategy,
      namespace: allNamespaces ? undefined : namespace,
      resourceVersion,
      resourceVersionMatch: options.resourceVersionMatch,
      limit: options.limit,
      continueToken: options.continueToken,
      continueTokens: { signer: continueTokens, lifetimeMs: settings.continueTokenLifetimeMs, now: () => clock.now() },
      select: filter.empty ? undefined : (kv) => filter.matches(storage.decode(kv)),
    });
  } catch (e) {
    throw readError(e, strategy, "list") ?? e;
  }
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
function pageSource(ctx: RequestContext, page: ListPage): ListSource {
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
