/**
 * The fault catalog: one registry of every fault tollgate's self-test applies (types.ts), from
 * the catalog files by mode and area. `tollgate emulator --fault`, `tollgate proxy --fault`,
 * `tollgate run --fault` and `npm run selftest` all look faults up here.
 */
import { CHECKER_FAULTS } from "./catalog/checker.js";
import { DAEMON_FAULTS } from "./catalog/daemons.js";
import { EMULATOR_FAULTS } from "./catalog/emulator.js";
import { WATCH_AND_ENCODING_FAULTS } from "./catalog/watch-and-encodings.js";
import { FIRST_WAVE_WIRE_FAULTS } from "./catalog/wire-first-wave.js";
import type { Fault } from "./types.js";

export type { CheckerFault, DaemonFault, EmulatorFault, Fault, FaultMode, WireFault } from "./types.js";

export const FAULTS: readonly Fault[] = [...FIRST_WAVE_WIRE_FAULTS, ...EMULATOR_FAULTS, ...DAEMON_FAULTS, ...CHECKER_FAULTS, ...WATCH_AND_ENCODING_FAULTS];

const BY_NAME: ReadonlyMap<string, Fault> = new Map(FAULTS.map((f) => [f.name, f]));

export function faultByName(name: string): Fault | undefined {
  return BY_NAME.get(name);
}

/** The faults that must break a rule. */
export function faultsOfRule(ruleId: string): Fault[] {
  return FAULTS.filter((f) => f.rules.includes(ruleId as Fault["rules"][number]));
}
