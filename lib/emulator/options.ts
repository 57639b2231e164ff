/** Emulator settings, with the defaults of a real 1.35 server where one exists. */
import { DEFAULT_MAX_BODY_BYTES } from "./http-io.js";
import { DEFAULT_RETENTION_MS } from "./store.js";

export interface EmulatorSettings {
  /** Interval between BOOKMARK events on watches that asked for them. */
  readonly bookmarkIntervalMs: number;
  /** Watch history window of the store (etcd compaction); older resourceVersions get 410. */
  readonly retentionMs: number;
  /** Delay before the namespace controller empties a terminating namespace. */
  readonly namespaceCleanupDelayMs: number;
  /** Request body limit (413 above it). */
  readonly maxRequestBodyBytes: number;
}

export const DEFAULT_SETTINGS: EmulatorSettings = {
  bookmarkIntervalMs: 60_000,
  retentionMs: DEFAULT_RETENTION_MS,
  namespaceCleanupDelayMs: 0,
  maxRequestBodyBytes: DEFAULT_MAX_BODY_BYTES,
};

export function resolveSettings(partial: Partial<EmulatorSettings>): EmulatorSettings {
  const pick = (key: keyof EmulatorSettings): number => {
    const v = partial[key];
    return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : DEFAULT_SETTINGS[key];
  };
  return {
    bookmarkIntervalMs: pick("bookmarkIntervalMs"),
    retentionMs: pick("retentionMs"),
    namespaceCleanupDelayMs: pick("namespaceCleanupDelayMs"),
    maxRequestBodyBytes: pick("maxRequestBodyBytes"),
  };
}
