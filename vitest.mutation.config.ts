import { defineConfig } from "vitest/config";

/**
 * The test files of the mutation runs (stryker.config.mjs, `npm run mutation`): the unit tests of
 * the flag checker and of the suites' oracles, and the doc3 option suite, which needs no target.
 * Not used by `npm test`, which keeps vitest.config.ts.
 */
export default defineConfig({
  test: {
    include: ["test/daemons/**/*.test.ts", "test/suites-support/**/*.test.ts", "suites/daemons/flags.test.ts"],
    globalSetup: ["test/mutation/global-setup.ts"],
    testTimeout: 30_000,
  },
});
