/**
 * The read rules of lists, gets and watches, over the object layer (object-storage.ts): which
 * revision a resourceVersion, resourceVersionMatch or continue token reads at, when that
 * revision is too old (compacted), too new (not reached yet) or an expired token's, and the
 * pages and continue tokens of a chunked list (doc1's list table, wire-facts §9).
 *
 * The parameters come in as plain values, already parsed: the endpoints translate the query
 * and map the typed errors (read-errors.ts) to a Status, whose wording depends on things
 * storage does not know. A continue token's age is measured on the clock handed in; the real
 * server's token lifetime is a side effect of etcd compaction every 5 minutes, which the
 * emulator's retention-based compaction does not give (continue-token.ts).
 */
import { type ContinuePosition, type ContinueTokenSigner, decodeContinue, encodeContinue, encodeContinueFrom } from "./continue-token.js";
import type { ObjectStorage, StoredType } from "./object-storage.js";
import { ContinueExpired, ContinueWithResourceVersion, InvalidResourceVersion, ResourceVersionTooLarge, ResourceVersionTooOld } from "./read-errors.js";
import { type ChangeEvent, type KeyValue, StoreError } from "./store.js";

/** How this emulator issues and ages its continue tokens. */
export interface ContinueTokens {
  /**
   * Stamps tokens with their issue time and checks the stamps of tokens handed back. Absent on
   * etcd: tokens are then the real server's, aged by etcd's compaction as a real server's are,
   * and every replica of the cluster takes the others' tokens.
   */
  readonly signer?: ContinueTokenSigner;
  /** A stamped token older than this is expired, as if its revision had been compacted. */
  readonly lifetimeMs: number;
  /** The clock tokens are stamped and aged on (ms). */
  readonly now: () => number;
}

/** One page of a collection, as asked for. */
export interface ListRead {
  readonly type: StoredType;
  /** One namespace of a namespaced type; undefined for the whole type. */
  readonly namespace: string | undefined;
  /** The resourceVersion parameter as given ("" when unset); parsed here, as the server's storage does. */
  readonly resourceVersion: string;
  /** "", "Exact" or "NotOlderThan" (other values are refused before storage). */
  readonly resourceVersionMatch: string;
  /** Page size; 0 for the whole collection. */
  readonly limit: number;
  /** The continue parameter; "" when unset. */
  readonly continueToken: string;
  readonly continueTokens: ContinueTokens;
  /**
   * Which entries of the page are returned (the selectors); absent returns all of them, and
   * only then is the number of entries after the page known (remainingItemCount).
   */
  readonly select?: (kv: KeyValue) => boolean;
}

export interface ListPage {
  /** The selected entries in key order. Decoded only when written: a page may be the whole store. */
  readonly kvs: readonly KeyValue[];
  readonly revision: number;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

const MAX_UINT64 = 2n ** 64n - 1n;

/**
 * A resourceVersion parameter as a revision, as the server's versioner parses it: "" and "0" are
 * undefined (any state will do), anything else a decimal uint64 or InvalidResourceVersion, with
 * Go's ParseUint verdict (the first bad character or overflow from the left decides). Exact:
 * a number up to 2^53, a bigint above, which no store reaches.
 */
export function parseResourceVersion(rv: string): number | bigint | undefined {
  if (rv === "" || rv === "0") return undefined;
  let value = 0n;
  for (const c of rv) {
    if (c < "0" || c > "9") throw new InvalidResourceVersion(rv, "invalid syntax");
    value = value * 10n + BigInt(c.charCodeAt(0) - 48);
    if (value > MAX_UINT64) throw new InvalidResourceVersion(rv, "value out of range");
  }
  if (value === 0n) return undefined;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** Throws ResourceVersionTooLarge when the store has not reached rv yet (undefined: any state will do). */
export async function mustHaveReached(storage: ObjectStorage, rv: number | bigint | undefined): Promise<void> {
  if (rv === undefined) return;
  const current = await storage.store.currentRevision();
  if (rv > current) throw new ResourceVersionTooLarge(rv, current);
}

/** The 410 case of a token: the rest of the list can still be read at the latest state. */
function continueExpired(position: ContinuePosition, prefix: string): ContinueExpired {
  return new ContinueExpired(position.rv, encodeContinueFrom(position.startKey, prefix, -1));
}

/**
 * Reads one page. The revision: a continue token's (its first page's), or the resourceVersion
 * for an exact read (resourceVersionMatch=Exact, or a first page with a limit), else the current
 * one, which is as new as any version given (NotOlderThan). The page fills up to the limit with
 * the entries select() keeps; the token resumes after the last entry examined. An entry marked
 * corrupt anywhere after the start refuses the whole read (object-storage.ts).
 */
export async function readList(storage: ObjectStorage, read: ListRead): Promise<ListPage> {
  const store = storage.store;
  const { continueTokens: tokens, limit } = read;
  const prefix = storage.prefix(read.type, read.namespace);

  let revision: number | undefined;
  let position: ContinuePosition | undefined;
  if (read.continueToken) {
    // The token is read first; the version is then refused unparsed, whatever it is but "" or "0".
    position = decodeContinue(read.continueToken, prefix, tokens.signer);
    if (read.resourceVersion !== "" && read.resourceVersion !== "0") throw new ContinueWithResourceVersion(read.resourceVersion);
    revision = position.rv > 0 ? position.rv : undefined;
    // An aged token goes the way of a compacted one: on a real server the two are the same event.
    const aged = position.issuedAt !== undefined && tokens.now() - position.issuedAt > tokens.lifetimeMs;
    if (aged || (revision !== undefined && revision < store.readableRevision)) throw continueExpired(position, prefix);
  } else {
    const requested = parseResourceVersion(read.resourceVersion);
    await mustHaveReached(storage, requested);
    // Reached, so a number.
    const requestedRv = requested === undefined ? undefined : Number(requested);
    if (requestedRv !== undefined && (read.resourceVersionMatch === "Exact" || (read.resourceVersionMatch === "" && limit > 0))) {
      const oldest = store.readableRevision;
      if (requestedRv < oldest) throw new ResourceVersionTooOld(requestedRv, oldest);
      revision = requestedRv;
    }
  }
  await mustHaveReached(storage, revision);

  let range: Awaited<ReturnType<typeof storage.range>>;
  try {
    range = await storage.range(read.type, read.namespace, { revision, startKey: position?.startKey });
  } catch (e) {
    if (!(e instanceof StoreError && e.code === "Compacted")) throw e;
    throw position ? continueExpired(position, prefix) : new ResourceVersionTooOld(revision ?? 0, store.readableRevision);
  }
  const kvs: KeyValue[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  for (const kv of range.kvs) storage.mustBeReadable(kv);
  for (const kv of range.kvs) {
    if (limit > 0 && kvs.length >= limit) {
      hasMore = true;
      break;
    }
    lastKey = kv.key;
    // Without selectors nothing needs decoding until the item is written.
    if (!read.select || read.select(kv)) kvs.push(kv);
  }
  if (!hasMore || lastKey === undefined) return { kvs, revision: range.revision };
  return {
    kvs,
    revision: range.revision,
    continueToken: encodeContinue(lastKey, prefix, range.revision, tokens.signer && { issuedAt: tokens.now(), signer: tokens.signer }),
    // Only without selectors: with them the count of matches ahead is unknown.
    remainingItemCount: read.select ? undefined : range.count - kvs.length,
  };
}

/** Where a watch of a collection starts. */
export interface WatchRead {
  readonly type: StoredType;
  /** One namespace of a namespaced type; undefined for the whole type. */
  readonly namespace: string | undefined;
  /** The resourceVersion parameter as a revision; undefined when unset or "0". */
  readonly resourceVersion: number | undefined;
  /** The sendInitialEvents parameter; undefined when unset. */
  readonly sendInitialEvents: boolean | undefined;
}

export interface WatchStart {
  /** The current state, which the stream sends first as ADDED events; absent when not asked for. */
  readonly initial?: readonly KeyValue[];
  /** The stream follows the changes after this revision. */
  readonly from: number;
}

/**
 * The start of a watch: the current state when asked for with sendInitialEvents, or implied by
 * an unset or "0" version (and the changes after it); else the changes after the version given,
 * or after the current revision. A version the store has not reached is no error: its changes
 * are simply still to come.
 */
export async function startWatch(storage: ObjectStorage, read: WatchRead): Promise<WatchStart> {
  if (read.sendInitialEvents ?? read.resourceVersion === undefined) {
    // The current state is at least as new as any version given (NotOlderThan). Changes made
    // after it while the caller awaits are after snapshot.revision: the replay from it sends them.
    const snapshot = await storage.range(read.type, read.namespace);
    return { initial: snapshot.kvs, from: snapshot.revision };
  }
  return { from: read.resourceVersion ?? storage.store.revision };
}

/**
 * Calls listener, synchronously, for each change of the collection after from that the history
 * still holds (none when from is the current revision). Throws ResourceVersionTooOld when the
 * history no longer reaches back to from.
 */
export function replayChanges(
  storage: ObjectStorage,
  type: StoredType,
  namespace: string | undefined,
  from: number,
  listener: (change: ChangeEvent) => void,
): void {
  let stop: () => void;
  try {
    stop = storage.watch(type, namespace, from, listener);
  } catch (e) {
    if (!(e instanceof StoreError && e.code === "Compacted")) throw e;
    throw new ResourceVersionTooOld(from, storage.store.compactRevision);
  }
  stop();
}
