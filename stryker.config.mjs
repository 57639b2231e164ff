// Mutation testing of the doc3 flag checker and of the suites' oracles (issue #14, "every rule
// proved able to fail"): `npm run mutation`, or one part at a time with `npm run mutation:checker`
// and `npm run mutation:support` (MUTATION_PART). The tests are those of vitest.mutation.config.ts;
// the HTML and JSON reports go to reports/mutation/ (git-ignored). README.md, "Mutation score",
// has the last figures. Incremental: a re-run tests only the mutants whose code or covering tests
// changed since the part's last run (reports/mutation/<part>-incremental.json); `-- --force` tests them all.
const PARTS = {
  all: ["lib/daemons/checker/**/*.ts", "suites/support/**/*.ts"],
  checker: ["lib/daemons/checker/**/*.ts"],
  support: ["suites/support/**/*.ts"],
};
const part = process.env.MUTATION_PART || "all";
if (!Object.hasOwn(PARTS, part)) throw new Error(`MUTATION_PART=${part}: expected one of ${Object.keys(PARTS).join(", ")}`);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  mutate: PARTS[part],
  coverageAnalysis: "perTest",
  // Stryker rewrites the tsconfig's extends and references for its sandbox with the TypeScript
  // compiler API, which TypeScript 7 no longer has; ours has neither, so no tsconfig is named.
  tsconfigFile: "",
  // Two cores, shared: one test process per core.
  concurrency: 2,
  incremental: true,
  incrementalFile: `reports/mutation/${part}-incremental.json`,
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: `reports/mutation/${part}.html` },
  jsonReporter: { fileName: `reports/mutation/${part}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  cleanTempDir: "always",
  thresholds: { high: 90, low: 85, break: null },
  // A mutant counts as detected when its tests time out, so the timeout is generous: on a shared
  // 2-core machine a slow start of the test worker is not a hang.
  timeoutMS: 60_000,
};
