/**
 * The emulator's one notion of "now". Everything that ages by time (the store's history
 * retention, creation and deletion timestamps, continue-token lifetime) reads this clock, so the
 * test-only admin endpoint can move time forward and have all of them agree; a test then sees
 * a five-minute expiry in milliseconds. Timers that only pace output (bookmarks, watch
 * timeoutSeconds, the namespace controller) stay on real time: advancing the clock is a jump,
 * and a jump cannot make a real timer fire early.
 */

/** The latest instant an API Time can carry (RFC 3339 has four-digit years). */
const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

export class ClockRangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClockRangeError";
  }
}

export class EmulatorClock {
  private offsetMs = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Milliseconds since the epoch, real time plus every advance so far. */
  now(): number {
    return this.realNow() + this.offsetMs;
  }

  date(): Date {
    return new Date(this.now());
  }

  /**
   * Moves the clock forward. Refuses a jump past year 9999, since every timestamp written after
   * it would be unrepresentable in the API's time format.
   */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms <= 0) throw new ClockRangeError(`the clock only moves forward, by a finite amount (got ${ms} ms)`);
    if (this.now() + ms > MAX_TIME_MS) throw new ClockRangeError("advancing that far would pass the year 9999");
    this.offsetMs += ms;
  }
}
