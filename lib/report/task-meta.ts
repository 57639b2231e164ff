/** What a conformance test tells reporters about itself through vitest's task meta. */
declare module "@vitest/runner" {
  interface TaskMeta {
    /** Ids of the catalog rules (lib/spec) the test checks. */
    rules?: string[];
    /** The capabilities it needs (lib/runner/capabilities.ts), as declared. */
    needs?: string[];
    /** Set by the runner when a need is unmet: why the test does not apply to the target. */
    notApplicable?: string;
  }
}

export {};
