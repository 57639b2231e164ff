/**
 * Why storage cannot serve a read (reads.ts, continue-token.ts), as plain facts: the revision
 * asked for and the one that bounds it, or the continue position. None of these knows HTTP or
 * Status: the answer a real server gives depends on more than storage knows (whether the type is
 * served from the watch cache, whether the read is a list or a watch), so the endpoints choose
 * it, with its wording, in one place (endpoints/handlers/storage-errors.ts). This module imports
 * nothing, so the token codec (continue-token.ts) can throw InvalidContinue without a cycle.
 */
/** Any of the read errors below; anything else a read throws is not a storage rule. */
abstract class StorageReadError extends Error {}

/** The revision asked for has been compacted: history starts at oldest. */
export class ResourceVersionTooOld extends StorageReadError {
  constructor(
    readonly rv: number,
    readonly oldest: number,
  ) {
    super(`revision ${rv} has been compacted (oldest ${oldest})`);
    this.name = "ResourceVersionTooOld";
  }
}

/** The revision asked for is newer than the store's (a real server waits a while, then gives up). */
export class ResourceVersionTooLarge extends StorageReadError {
  constructor(
    /** Exact: a bigint above 2^53 (any uint64 is a valid version). */
    readonly rv: number | bigint,
    readonly current: number,
  ) {
    super(`revision ${rv} is newer than the current one (${current})`);
    this.name = "ResourceVersionTooLarge";
  }
}

/** A continue token whose snapshot is gone (compacted, or older than the token lifetime). */
export class ContinueExpired extends StorageReadError {
  constructor(
    /** The revision the token pinned (its first page's). */
    readonly rv: number,
    /** A token for the rest of the list at the latest state (rv -1), from the same key. */
    readonly restart: string,
  ) {
    super(`the snapshot of continue revision ${rv} is gone`);
    this.name = "ContinueExpired";
  }
}

/** A continue token that does not decode or check; the message says why (continue-token.ts). */
export class InvalidContinue extends StorageReadError {
  constructor(message: string) {
    super(message);
    this.name = "InvalidContinue";
  }
}

/** A continue token together with a resourceVersion: the token already fixes the revision. */
export class ContinueWithResourceVersion extends StorageReadError {
  /** The parameter as given: with a token the server does not parse it. */
  constructor(readonly rv: string) {
    super(`a continue token fixes the revision; resourceVersion ${rv} was given too`);
    this.name = "ContinueWithResourceVersion";
  }
}

/** A resourceVersion that is not a decimal uint64: Go's strconv.ParseUint error of it. */
export class InvalidResourceVersion extends StorageReadError {
  constructor(
    readonly value: string,
    readonly reason: "invalid syntax" | "value out of range",
  ) {
    super(`resourceVersion ${value}: ${reason}`);
    this.name = "InvalidResourceVersion";
  }
}
