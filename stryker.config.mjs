// Mutation testing of the doc3 flag checker and of the suites' oracles (issue #14, "every rule
// proved able to fail"): `npm run mutation`. The tests are those of vitest.mutation.config.ts;
// the HTML and JSON reports go to reports/mutation/ (git-ignored). README.md, "Mutation score",
// has the last figure. Incremental: a re-run tests only the mutants whose code or tests changed
// since reports/mutation/stryker-incremental.json; `npm run mutation -- --force` tests them all.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  mutate: ["lib/daemons/checker/**/*.ts", "suites/support/**/*.ts"],
  coverageAnalysis: "perTest",
  // Stryker rewrites the tsconfig's extends and references for its sandbox with the TypeScript
  // compiler API, which TypeScript 7 no longer has; ours has neither, so no tsconfig is named.
  tsconfigFile: "",
  // Two cores, shared: one test process per core.
  concurrency: 2,
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  cleanTempDir: "always",
  thresholds: { high: 90, low: 85, break: null },
  timeoutMS: 10_000,
};
