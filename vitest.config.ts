import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "conformance",
          include: ["suites/**/*.test.ts"],
          globalSetup: ["lib/runner/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
