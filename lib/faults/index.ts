/**
 * The fault catalog: one registry of every fault tollgate's self-test applies (types.ts), from
 * the catalog files by mode and area. `tollgate emulator --fault`, `tollgate proxy --fault`,
 * `tollgate run --fault` and `npm run selftest` all look faults up here.
 */
import { CHECKER_FAULTS } from "./catalog/checker.js";
import { DAEMON_FAULTS } from "./catalog/daemons.js";
import { EMULATOR_FAULTS } from "./catalog/emulator.js";
import { EVENT_ENDPOINT_FAULTS } from "./catalog/events-endpoints.js";
import { EVENTS_VALIDATION_FAULTS } from "./catalog/events-validation.js";
import { PATCH_AND_CRD_FAULTS } from "./catalog/patch-and-crds.js";
import { READ_PATH_FAULTS } from "./catalog/read-path.js";
import { REPLICA_FAULTS } from "./catalog/replicas.js";
import { WATCH_AND_ENCODING_FAULTS } from "./catalog/watch-and-encodings.js";
import { FIRST_WAVE_WIRE_FAULTS } from "./catalog/wire-first-wave.js";
import { WRITE_PATH_FAULTS } from "./catalog/write-path.js";
import type { Fault } from "./types.js";

export type { CheckerFault, DaemonCommandLines, DaemonFault, EmulatorFault, Fault, FaultMode, WireFault } from "./types.js";

/** The catalog files, each an area (its file name), in the order the self-test reports them. */
export const FAULT_AREAS: readonly { readonly area: string; readonly faults: readonly Fault[] }[] = [
  { area: "wire-first-wave", faults: FIRST_WAVE_WIRE_FAULTS },
  { area: "emulator", faults: EMULATOR_FAULTS },
  { area: "daemons", faults: DAEMON_FAULTS },
  { area: "checker", faults: CHECKER_FAULTS },
  { area: "events-endpoints", faults: EVENT_ENDPOINT_FAULTS },
  { area: "events-validation", faults: EVENTS_VALIDATION_FAULTS },
  { area: "patch-and-crds", faults: PATCH_AND_CRD_FAULTS },
  { area: "read-path", faults: READ_PATH_FAULTS },
  { area: "watch-and-encodings", faults: WATCH_AND_ENCODING_FAULTS },
  { area: "write-path", faults: WRITE_PATH_FAULTS },
  { area: "replicas", faults: REPLICA_FAULTS },
];

export const FAULTS: readonly Fault[] = FAULT_AREAS.flatMap((a) => a.faults);

const BY_NAME: ReadonlyMap<string, Fault> = new Map(FAULTS.map((f) => [f.name, f]));

export function faultByName(name: string): Fault | undefined {
  return BY_NAME.get(name);
}

/** The faults that must break a rule. */
export function faultsOfRule(ruleId: string): Fault[] {
  return FAULTS.filter((f) => f.rules.includes(ruleId as Fault["rules"][number]));
}

const AREA_OF: ReadonlyMap<string, string> = new Map(FAULT_AREAS.flatMap((a) => a.faults.map((f) => [f.name, a.area] as const)));

/** The catalog file a fault is in. */
export function areaOf(name: string): string | undefined {
  return AREA_OF.get(name);
}
