/** What the etcd tests share: the binary (or the reason they skip) and collecting watch events. */

import type { ChangeEvent } from "../../lib/emulator/storage/store.js";
import { findEtcd } from "../../lib/etcd/launch.js";

export const ETCD_BINARY = findEtcd();

/** Prints why a file's tests skip; they skip only when no etcd binary is found. */
export function skipReason(file: string): boolean {
  if (ETCD_BINARY) return false;
  console.log(`${file}: skipped: no etcd binary (TOLLGATE_ETCD unset and no etcd on PATH; Debian: apt-get install etcd-server)`);
  return true;
}

/** Waits (bounded) until events holds n entries, or the watch ended (ended not empty); returns them. */
export async function waitForEvents(events: ChangeEvent[], n: number, timeoutMs = 3000, ended: unknown[] = []): Promise<ChangeEvent[]> {
  const deadline = Date.now() + timeoutMs;
  while (events.length < n && ended.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return events;
}
