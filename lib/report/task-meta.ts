/** What a conformance test tells reporters about itself through vitest's task meta. */
import type { Exchange } from "../harness/exchanges.js";
import type { UnmetNeed } from "../runner/capabilities.js";
import type { PropertyEvidence } from "../runner/evidence.js";

declare module "@vitest/runner" {
  interface TaskMeta {
    /** Ids of the catalog rules (lib/spec) the test checks. */
    rules?: string[];
    /** The capabilities it needs (lib/runner/capabilities.ts), as declared. */
    needs?: string[];
    /** Set by the runner when a need is unmet: why the test does not apply to the target. */
    notApplicable?: string;
    /** The unmet needs behind notApplicable, each with the capability's evidence. */
    unmet?: UnmetNeed[];
    /** Set when the test failed: its last exchanges with the target (lib/harness/exchanges.ts). */
    exchanges?: Exchange[];
    /** Set when a property failed: its seed and counterexample. */
    property?: PropertyEvidence;
  }
}

export {};
