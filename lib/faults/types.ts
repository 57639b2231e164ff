/**
 * A fault: one way a server (or tollgate's own flag checker) can be wrong, named, with the
 * rules it must break and the real defect it models. `npm run selftest` applies each fault,
 * runs the suites that name its rules, and expects every one of those rules to fail.
 */
import type { RuleId } from "../spec/catalog.js";
import type { WireRewrite } from "./wire-proxy.js";

interface FaultBase {
  /** Stable, lowercase with dashes: what `--fault` takes. */
  readonly name: string;
  /** The rules a target with this fault breaks: each must fail in a run of the suites that name it. */
  readonly rules: readonly RuleId[];
  /** The real defect this fault models, in a sentence. */
  readonly models: string;
  /** A public reference for that defect (an issue, a fix, a changelog line), where one exists. */
  readonly reference?: string;
  /**
   * Shown only with several servers of one cluster (the multi-replica suites need `--replica`):
   * the self-test's one embedded emulator cannot show it, so it skips the fault; the test named
   * here shows it caught.
   */
  readonly severalServers?: string;
}

/**
 * A fault of the wire, applied by a proxy in front of any target (`tollgate proxy`, or
 * `tollgate run --fault` with or without --target): requests, responses and watch events
 * rewritten, dropped, duplicated or reordered.
 */
export interface WireFault extends FaultBase {
  readonly mode: "wire";
  readonly wire: Omit<WireRewrite, "name" | "suite" | "suites" | "all">;
  /**
   * The fault must meet the runner's own requests too (the detection before the tests), so the
   * self-test never limits it to its suites' requests nor lets it share a run.
   */
  readonly wholeRun?: boolean;
}

/**
 * A fault of state inside the emulator (`tollgate emulator --fault`): named failpoints of the
 * emulator's own registry (lib/emulator/failpoints.ts), in storage, versions and validation.
 */
export interface EmulatorFault extends FaultBase {
  readonly mode: "emulator";
  readonly failpoints: readonly string[];
}

/** A fault of the emulated doc3 daemons: misbehaviours the daemons define (lib/emulator/daemons/). */
export interface DaemonFault extends FaultBase {
  readonly mode: "daemons";
  readonly controllerManager?: readonly string[];
  readonly nodeAgent?: readonly string[];
  /**
   * Command lines the embedded daemons start with instead of the embedded ones (and the run is
   * told), for rules whose tests apply only under another setting (`!cm-authentication-file`).
   * The self-test also runs these lines without the misbehaviours: the rules must pass there.
   */
  readonly commandLines?: DaemonCommandLines;
}

export interface DaemonCommandLines {
  readonly controllerManager?: readonly string[];
  readonly nodeAgent?: readonly string[];
}

/**
 * A fault of tollgate's flag checker (lib/daemons/checker/), the oracle the doc3 option suite
 * examines: the checker stops reporting the findings of these rules, as a checker written
 * without them would.
 */
export interface CheckerFault extends FaultBase {
  readonly mode: "checker";
}

export type Fault = WireFault | EmulatorFault | DaemonFault | CheckerFault;
export type FaultMode = Fault["mode"];
