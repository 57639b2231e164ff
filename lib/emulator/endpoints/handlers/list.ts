/**
 * GET of a collection: the query's selectors, paging and resourceVersion handed to storage's read
 * rules (storage/reads.ts: items in key order, limit/continue paging with tokens that pin the first
 * page's revision, exact and not-older-than reads, expiry by compaction or token lifetime), and
 * its errors answered as a real server does (storage-errors.ts). The body is streamed item by item
 * in JSON and protobuf, so a large list costs memory per chunk written, not per list (respond.ts).
 */
import type { KubeObject } from "../../apimachinery/json.js";
import type { FailpointName } from "../../failpoints.js";
import { type ContinuePosition, decodeContinue, encodeContinueFrom } from "../../storage/continue-token.js";
import { type ListPage, type ListRead, parseResourceVersion, readList } from "../../storage/reads.js";
import { type ListOptions, objectFilter } from "../list-options.js";
import type { RequestContext } from "./context.js";
import { type ListSource, writeList as writeListResponse } from "./respond.js";
import { readError } from "./storage-errors.js";

/** Reads one page of the collection the route names. */
export async function readPage(ctx: RequestContext, options: ListOptions): Promise<ListPage> {
  const { strategy, namespace, allNamespaces } = ctx.route;
  const { storage, clock, settings, continueTokens } = ctx.parts;
  const filter = objectFilter(options, strategy);
  const read: ListRead = {
    type: strategy,
    namespace: allNamespaces ? undefined : namespace,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
    limit: options.limit,
    continueToken: options.continueToken,
    continueTokens: { ...(continueTokens ? { signer: continueTokens } : {}), lifetimeMs: settings.continueTokenLifetimeMs, now: () => clock.now() },
    select: filter.empty ? undefined : (kv) => filter.matches(storage.decode(kv)),
  };
  try {
    return await (settings.failpoints.size === 0 ? readList(storage, read) : readFaultyPage(ctx, read));
  } catch (e) {
    throw readError(e, strategy, "list") ?? e;
  }
}

/**
 * A page as a server with the read-path bugs of the failpoints switched on reads it
 * (failpoints.ts; the self-test's faults of lib/faults/catalog/read-path.ts): the request is
 * bent before storage's read rules, the page after them.
 */
async function readFaultyPage(ctx: RequestContext, asked: ListRead): Promise<ListPage> {
  const { storage, settings } = ctx.parts;
  const on = (name: FailpointName): boolean => settings.failpoints.has(name);
  const store = storage.store;
  const latest = { resourceVersion: "", resourceVersionMatch: "" };
  let read = asked;
  /** The version the faulty server puts on the page instead of the one it read at. */
  let label: number | undefined;
  const requested = asked.continueToken ? undefined : parseResourceVersion(asked.resourceVersion);
  const rv = requested === undefined ? undefined : Number(requested);
  const exactRead = asked.resourceVersionMatch === "Exact" || (asked.resourceVersionMatch === "" && asked.limit > 0);
  if (on("list-ignores-resource-version")) read = { ...read, ...latest };
  else if (rv !== undefined && !asked.continueToken) {
    // kine answered revisions it could not serve with its latest state, labelled with the revision asked for.
    const unservable =
      on("list-echoes-requested-rv") ||
      (on("future-rv-served") && rv > store.revision) ||
      (on("compacted-list-served") && exactRead && rv < store.compactRevision);
    if (unservable) {
      read = { ...read, ...latest };
      label = rv;
    }
  }
  if (asked.continueToken && (on("continue-reads-latest") || on("compacted-list-served"))) {
    const prefix = storage.prefix(asked.type, asked.namespace);
    let position: ContinuePosition | undefined;
    try {
      position = decodeContinue(asked.continueToken, prefix, asked.continueTokens.signer);
    } catch {
      // A token the server cannot read is storage's 400, as without the failpoint.
    }
    const relabel = position !== undefined && position.rv > 0 && (on("continue-reads-latest") || position.rv < store.compactRevision);
    // The same position at the latest revision: what a 410's fresh token asks for, here without the 410.
    if (position && relabel) read = { ...read, continueToken: encodeContinueFrom(position.startKey, prefix, -1) };
  }
  let page = await readList(storage, read);
  if (label !== undefined) page = { ...page, revision: label };
  if (on("continue-skips-item") && asked.continueToken) page = { ...page, kvs: page.kvs.slice(1) };
  if (on("remaining-count-with-selectors") && asked.select && page.continueToken) {
    page = { ...page, remainingItemCount: (await readList(storage, { ...read, select: undefined })).remainingItemCount };
  }
  return page;
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
    entries: page.kvs,
    itemTexts: () => pageItemTexts(ctx, page),
    items: () => pageItems(ctx, page),
  };
}

/** Writes the page as the list object (or its Table / metadata-only form), as negotiated. */
export function writeList(ctx: RequestContext, page: ListPage): Promise<void> {
  return writeListResponse(ctx, pageSource(ctx, page));
}

export async function handleList(ctx: RequestContext, options: ListOptions): Promise<void> {
  return writeList(ctx, await readPage(ctx, options));
}
