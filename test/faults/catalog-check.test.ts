/**
 * The fault catalog's own consistency (lib/faults/check.ts), and the rule that one run starts
 * the embedded daemons with the command lines of one fault at most.
 */
import { describe, expect, it } from "vitest";
import { checkFaultCatalog, faultCommandLines, unusedFailpoints } from "../../lib/faults/check.js";
import { type DaemonFault, FAULTS, faultByName } from "../../lib/faults/index.js";

const daemonFault = (name: string): DaemonFault => {
  const f = faultByName(name);
  if (f?.mode !== "daemons") throw new Error(`${name}: no daemon fault`);
  return f;
};

describe("fault catalog", () => {
  it("is consistent", () => {
    expect(checkFaultCatalog()).toEqual([]);
  });

  it("names every failpoint and daemon misbehaviour the emulator has (none is dead code)", () => {
    expect(unusedFailpoints()).toEqual([]);
    expect(unusedFailpoints([])).toContain("dry-run-persists");
  });

  it("finds a broken entry (so the check above can fail)", () => {
    const bad = { name: "Bad Name", mode: "emulator", rules: ["doc1.no-such.rule", "doc1.list-rv.exact-snapshot"], models: " ", failpoints: ["nope"] } as const;
    const problems = checkFaultCatalog([...FAULTS.slice(0, 1), bad as never, FAULTS[0] as never]);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("lowercase words"),
        expect.stringContaining("unknown rule doc1.no-such.rule"),
        expect.stringContaining("not observable"),
        expect.stringContaining("says no defect"),
        expect.stringContaining('no failpoint "nope"'),
        expect.stringContaining("name used twice"),
      ]),
    );
  });

  it("refuses command lines that name no daemon", () => {
    const f: DaemonFault = { ...daemonFault("cm-tokens-without-authn-file"), commandLines: {} };
    expect(checkFaultCatalog([f])).toEqual(["cm-tokens-without-authn-file: commandLines names no daemon"]);
  });

  it("a run takes the command lines of one fault, and refuses two that differ", () => {
    const authn = daemonFault("cm-tokens-without-authn-file");
    expect(faultCommandLines(FAULTS.filter((f) => f.mode !== "daemons" || !f.commandLines))).toBeUndefined();
    expect(faultCommandLines([daemonFault("cm-pprof-missing"), authn])).toBe(authn.commandLines);
    expect(faultCommandLines([authn, authn])).toBe(authn.commandLines);
    expect(() => faultCommandLines([authn, daemonFault("agent-always-allow-refuses-configz")])).toThrow(
      /cm-tokens-without-authn-file and agent-always-allow-refuses-configz start the daemons with different command lines/,
    );
  });

  it("a command-line variant keeps the embedded line but the options it is about", () => {
    const lines = daemonFault("cm-allow-list-without-authz-file").commandLines?.controllerManager ?? [];
    expect(lines.some((a) => a.startsWith("--authorization-kubeconfig"))).toBe(false);
    expect(lines.some((a) => a.startsWith("--authentication-kubeconfig="))).toBe(true);
    expect(lines.some((a) => a.startsWith("--client-ca-file="))).toBe(true);
    expect(daemonFault("agent-always-allow-refuses-configz").commandLines?.nodeAgent).not.toContain("--authorization-mode=Webhook");
  });
});
