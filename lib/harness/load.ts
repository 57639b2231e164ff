/**
 * Load manners: how hard tollgate may press a target. A token bucket with kubectl's defaults
 * (kubectl 1.35 leaves its REST client at client-go's rest.DefaultQPS 5 and DefaultBurst 10 and
 * raises them only for discovery), a bound on requests in flight, a per-request timeout, and a
 * 429 with Retry-After waited out and retried a bounded number of times, as client-go does.
 *
 * The state is per process (globalThis, so that modules loaded twice through different loaders
 * share it): a vitest worker is one process, and the run's budget is split among the workers
 * (lib/runner/global-setup.ts). Until a process is configured nothing is limited, so unit tests
 * and scripts that use the client meet no limits.
 */

export interface LoadSettings {
  /** Requests per second on average; 0: no rate limit. */
  qps: number;
  /** Requests that may go at once after a quiet spell. */
  burst: number;
  /** Requests in flight at once (a watch counts until its headers arrive); 0: no bound. */
  maxInflight: number;
  /** How long a request may take (a watch: until its headers); 0: no timeout. */
  requestTimeoutMs: number;
  /** Retries of a 429 that carries Retry-After. */
  max429Retries: number;
  /** The longest Retry-After waited out; a longer one is returned to the caller as the 429 it is. */
  maxRetryAfterMs: number;
}

/** kubectl's defaults (client-go rest.DefaultQPS, rest.DefaultBurst) and tollgate's bounds. */
export const DEFAULT_LOAD: LoadSettings = {
  qps: 5,
  burst: 10,
  maxInflight: 16,
  requestTimeoutMs: 20_000,
  // client-go retries up to 10 times; a conformance run prefers to see a target that keeps refusing.
  max429Retries: 5,
  maxRetryAfterMs: 10_000,
};

/** No limits at all: the state of a process nobody configured. */
export const NO_LIMITS: LoadSettings = { qps: 0, burst: 0, maxInflight: 0, requestTimeoutMs: 0, max429Retries: 0, maxRetryAfterMs: 0 };

/** What the manners cost, counted per process. */
export interface LoadCounters {
  /** Requests sent (each retry counts). */
  requests: number;
  /** Milliseconds requests waited for the rate limit. */
  throttledMs: number;
  /** 429 answers with Retry-After that were waited out and retried. */
  retried429: number;
  /** Milliseconds spent waiting out Retry-After. */
  retryAfterMs: number;
  /** Milliseconds requests waited for a free in-flight slot. */
  queuedMs: number;
}

export const zeroCounters = (): LoadCounters => ({ requests: 0, throttledMs: 0, retried429: 0, retryAfterMs: 0, queuedMs: 0 });

export function addCounters(a: LoadCounters, b: LoadCounters): LoadCounters {
  return {
    requests: a.requests + b.requests,
    throttledMs: a.throttledMs + b.throttledMs,
    retried429: a.retried429 + b.retried429,
    retryAfterMs: a.retryAfterMs + b.retryAfterMs,
    queuedMs: a.queuedMs + b.queuedMs,
  };
}

export function diffCounters(now: LoadCounters, before: LoadCounters): LoadCounters {
  return {
    requests: now.requests - before.requests,
    throttledMs: now.throttledMs - before.throttledMs,
    retried429: now.retried429 - before.retried429,
    retryAfterMs: now.retryAfterMs - before.retryAfterMs,
    queuedMs: now.queuedMs - before.queuedMs,
  };
}

/**
 * A token bucket in the reservation style of golang.org/x/time/rate (what client-go uses): each
 * request takes a token at once, possibly going into debt, and waits until the debt would be
 * paid. Waiters are served in arrival order without a queue of their own.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Milliseconds the caller must wait before its request may go (0: at once). */
  reserve(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }
}

/** A counting semaphore: at most `limit` holders at once, the others queued in arrival order. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async enter(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.active += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
      if (next) next();
      else this.active -= 1;
    };
  }
}

interface LoadState {
  settings: LoadSettings;
  bucket?: TokenBucket;
  slots?: Slots;
  counters: LoadCounters;
}

const KEY = Symbol.for("tollgate.load");
const store = globalThis as { [KEY]?: LoadState };

function state(): LoadState {
  store[KEY] ??= { settings: NO_LIMITS, counters: zeroCounters() };
  return store[KEY];
}

/** Sets this process's manners (the counters carry on). */
export function configureLoad(settings: LoadSettings): void {
  const s = state();
  s.settings = settings;
  s.bucket = settings.qps > 0 ? new TokenBucket(settings.qps, Math.max(1, settings.burst)) : undefined;
  s.slots = settings.maxInflight > 0 ? new Slots(settings.maxInflight) : undefined;
}

export function loadSettings(): LoadSettings {
  return state().settings;
}

export function loadCounters(): LoadCounters {
  return { ...state().counters };
}

export function countLoad(delta: Partial<LoadCounters>): void {
  const c = state().counters;
  for (const [k, v] of Object.entries(delta) as [keyof LoadCounters, number][]) c[k] += v;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits for the rate limit; the wait is counted. */
export async function throttle(): Promise<void> {
  const wait = state().bucket?.reserve() ?? 0;
  if (wait > 0) {
    countLoad({ throttledMs: wait });
    await sleep(wait);
  }
}

/** Takes an in-flight slot (waiting for one is counted); returns its release. */
export async function takeSlot(): Promise<() => void> {
  const slots = state().slots;
  if (!slots) return () => undefined;
  const started = performance.now();
  const release = await slots.enter();
  const waited = performance.now() - started;
  if (waited >= 1) countLoad({ queuedMs: Math.round(waited) });
  return release;
}

/**
 * The delay a 429 asks for, in milliseconds, when it is one to wait out: Retry-After in seconds
 * (what API Priority and Fairness and the TooManyRequests Status send) or as an HTTP date.
 */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const v = header.trim();
  if (/^[0-9]+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Go's duration syntax as kubectl's --request-timeout takes it ("90s", "1m30s", "500ms"); a bare
 * "0" means none. Returns milliseconds, or undefined when the text is not a duration.
 */
export function parseDuration(raw: string): number | undefined {
  const v = raw.trim();
  if (v === "0") return 0;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v)) !== null) {
    total += Number(m[1]) * (units[m[2] as string] as number);
    pos = re.lastIndex;
  }
  return pos === v.length && pos > 0 ? Math.round(total) : undefined;
}

/** A duration for messages: "800 ms", "20 s", "2 min 30 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
  const min = Math.floor(s / 60);
  return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
}
