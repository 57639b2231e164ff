/**
 * `/healthz`, `/livez`, `/readyz` and their individual checks (wire-facts §22; apiserver@v0.35.7
 * pkg/server/healthz/healthz.go handleRootHealth and adaptCheckToHandler, pkg/server/healthz.go):
 * `ok`, or with `?verbose` (any value) one `[+]<check> ok` line per check in registration order
 * and `<endpoint> check passed`; `?exclude=<check>` (repeatable) marks a check
 * `[+]<check> excluded: ok`, and names that match nothing add a `warn:` line. A failing check
 * (the etcd probes, on etcd: storage/etcd/etcd-health.ts) reads `[-]<check> failed: reason
 * withheld`, and the answer is then a 500 through http.Error, always verbose, ending
 * `<endpoint> check failed`; on its own path, `internal server error: <error>`. The other
 * checks always pass (in memory, the etcd ones too: the store is always there).
 *
 * The checks: ping and log (the server's defaults), etcd (the storage options), then on readyz
 * etcd-readiness and informer-sync, and shutdown last. A real kube-apiserver also lists its
 * `poststarthook/<name>` hooks between them; that list is not settled for 1.35 (wire-facts §22),
 * so none is made up here.
 */
import type { ServerResponse } from "node:http";

/** A check that can fail: undefined when healthy, else its error. */
export type HealthProbe = () => Promise<string | undefined>;
export type HealthProbes = Readonly<Partial<Record<string, HealthProbe>>>;

export type HealthEndpoint = "healthz" | "livez" | "readyz";

interface Check {
  readonly name: string;
  /** The group `?exclude=` may name instead (NamedGroupedCheck). */
  readonly group?: string;
}

const COMMON: readonly Check[] = [{ name: "ping" }, { name: "log" }, { name: "etcd", group: "etcd" }];

const CHECKS: Readonly<Record<HealthEndpoint, readonly Check[]>> = {
  healthz: COMMON,
  livez: COMMON,
  readyz: [...COMMON, { name: "etcd-readiness", group: "etcd-readiness" }, { name: "informer-sync" }, { name: "shutdown" }],
};

/** Go's %q of a plain name (the check names are printable ASCII; others are escaped as JSON does, close enough). */
const goQuote = (s: string): string => JSON.stringify(s);

function write(res: ServerResponse, code: number, text: string, nosniff: boolean): void {
  res.writeHead(code, {
    // The filter chain's WithCacheControl covers these paths too.
    "Cache-Control": "no-cache, private",
    "Content-Type": "text/plain; charset=utf-8",
    ...(nosniff ? { "X-Content-Type-Options": "nosniff" } : {}),
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * Answers a health path. `check` is the second path segment (`/readyz/etcd`), if any: a check
 * of that endpoint answers `ok` (adaptCheckToHandler sets no headers; Go sniffs text/plain), or
 * its error through http.Error; an unknown one is false (the caller's 404). Checks run in order,
 * one after the other, as handleRootHealth runs them; excluded ones do not run.
 */
export async function answerHealth(res: ServerResponse, url: URL, endpoint: HealthEndpoint, check?: string, probes: HealthProbes = {}): Promise<boolean> {
  const checks = CHECKS[endpoint];
  if (check !== undefined) {
    if (!checks.some((c) => c.name === check)) return false;
    const error = await probes[check]?.();
    if (error === undefined) write(res, 200, "ok", false);
    else write(res, 500, `internal server error: ${error}\n`, true);
    return true;
  }
  const excluded = new Set(url.searchParams.getAll("exclude"));
  const unknown = new Set(excluded);
  let out = "";
  let failed = false;
  for (const c of checks) {
    if (excluded.has(c.name)) {
      unknown.delete(c.name);
      out += `[+]${c.name} excluded: ok\n`;
    } else if (c.group !== undefined && excluded.has(c.group)) {
      unknown.delete(c.group);
      out += `[+]${c.name} excluded with ${c.group}: ok\n`;
    } else if ((await probes[c.name]?.()) !== undefined) {
      failed = true;
      out += `[-]${c.name} failed: reason withheld\n`;
    } else out += `[+]${c.name} ok\n`;
  }
  if (unknown.size > 0) out += `warn: some health checks cannot be excluded: no matches for ${[...unknown].sort().map(goQuote).join(",")}\n`;
  if (failed) write(res, 500, `${out}${endpoint} check failed\n`, true);
  else write(res, 200, url.searchParams.has("verbose") ? `${out}${endpoint} check passed\n` : "ok", true);
  return true;
}
