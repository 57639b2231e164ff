/**
 * Faults of state inside the emulator: failpoints of lib/emulator/failpoints.ts, each modelled
 * on a real server's bug.
 */
import type { EmulatorFault } from "../types.js";

export const EMULATOR_FAULTS: readonly EmulatorFault[] = [
  {
    name: "dry-run-persists",
    mode: "emulator",
    rules: ["doc1.dry-run.nothing-persisted"],
    models: "a server whose write path drops the dryRun option, so a dry run is stored (fake servers that accept dryRun and ignore it)",
    failpoints: ["dry-run-persists"],
  },
  {
    name: "conflict-as-500",
    mode: "emulator",
    rules: ["doc1.errors.409-stale-put"],
    models: "a server that answers a lost optimistic-concurrency race with 500 instead of 409 Conflict (storage errors passed through unmapped)",
    failpoints: ["conflict-as-500"],
  },
];
