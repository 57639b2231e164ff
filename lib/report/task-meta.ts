/** What a conformance test tells reporters about itself through vitest's task meta. */
declare module "@vitest/runner" {
  interface TaskMeta {
    /** Ids of the catalog rules (lib/spec) the test checks. */
    rules?: string[];
  }
}

export {};
