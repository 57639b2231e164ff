/**
 * How a conformance run is configured between the CLI, vitest's main process and its
 * workers: environment variables in, one RunSettings object provided to every test file.
 */
import { newRunId, type RunSettings } from "../harness/session.js";
import { defaultSpecSettings } from "../harness/target.js";

export const ENV = {
  target: "TOLLGATE_TARGET",
  kubeconfig: "TOLLGATE_KUBECONFIG",
  context: "TOLLGATE_CONTEXT",
  token: "TOLLGATE_TOKEN",
  runId: "TOLLGATE_RUN_ID",
  groupDomain: "TOLLGATE_GROUP_DOMAIN",
  vendor: "TOLLGATE_VENDOR",
} as const;

export function runIdFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env[ENV.runId] || newRunId();
}

export function specSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RunSettings["spec"] {
  return {
    groupDomain: env[ENV.groupDomain] || defaultSpecSettings.groupDomain,
    vendor: env[ENV.vendor] || defaultSpecSettings.vendor,
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    tollgate: RunSettings;
  }
}
