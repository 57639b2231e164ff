/**
 * kube-apiserver's etcd health checks (pkg/server/options/etcd.go addEtcdHealthEndpoint; the
 * probe in pkg/storage/storagebackend/factory/etcd3.go newETCD3Check): `etcd` (on /healthz,
 * /livez and /readyz, bounded by --etcd-healthcheck-timeout) and `etcd-readiness` (/readyz only,
 * --etcd-readycheck-timeout), both 2 s by default. Each is its own probe: a read of
 * `<prefix>/health` within the timeout; etcd's client keeps retrying an unreachable server until
 * then, so a failure takes the whole timeout and reads `error getting data from etcd: context
 * deadline exceeded`. Probes are rate-limited to one per half timeout (burst one): a check in
 * between answers the error of the last probe sent.
 */
import type { EtcdStore } from "./etcd-store.js";

/** Answers undefined when healthy, else the error text. */
export type HealthProbe = () => Promise<string | undefined>;

export const DEFAULT_ETCD_CHECK_TIMEOUT_MS = 2000;
/** How often an unreachable etcd is tried again within one probe. */
const RETRY_MS = 100;

export function etcdHealthProbe(etcd: EtcdStore, healthKey: string, timeoutMs: number, now: () => number = Date.now): HealthProbe {
  // Before the first probe: the client not being up yet (etcd3.go's initial lastError).
  let last: { error: string | undefined; sentAt: number } = { error: "etcd client connection not yet established", sentAt: -Infinity };
  let nextToken = -Infinity;
  return async () => {
    const sentAt = now();
    if (sentAt < nextToken) return last.error;
    nextToken = sentAt + timeoutMs / 2;
    const error = await probe(etcd, healthKey, sentAt + timeoutMs, now);
    // A slower probe sent earlier never overwrites a later one's answer.
    if (sentAt > last.sentAt) last = { error, sentAt };
    return error;
  };
}

async function probe(etcd: EtcdStore, key: string, deadline: number, now: () => number): Promise<string | undefined> {
  for (;;) {
    const left = deadline - now();
    if (left <= 0) return "error getting data from etcd: context deadline exceeded";
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([
      etcd.get(key).then(
        () => true,
        () => false,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), left);
      }),
    ]);
    clearTimeout(timer);
    if (ok) return undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MS, Math.max(0, deadline - now()))));
  }
}
