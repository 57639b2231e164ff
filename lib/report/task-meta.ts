/** What a conformance test tells reporters about itself through vitest's task meta. */
import type { Exchange } from "../harness/exchanges.js";
import type { LoadCounters } from "../harness/load.js";
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
    /** Set by the runner when the run's selection (--focus, --skip, --rerun-failed) leaves the test out. */
    deselected?: boolean;
    /** Set by the runner when the test failed while the target did not answer: what went unanswered. */
    targetUnavailable?: string;
    /** What the test's requests cost under the run's load manners (lib/harness/load.ts). */
    load?: LoadCounters;
  }
}
