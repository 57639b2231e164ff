/**
 * Which controllers a controller manager started with a command line runs, and so which
 * named health checks its /healthz lists (doc3 "What the service does": it embeds the core
 * control loops). Shared by the emulated controller manager and the probe suite.
 *
 * A real 1.35 controller manager adds one check per controller it starts, named after the
 * controller, after its `leaderElection` check (present with --leader-elect, the default);
 * with no check at all, healthz installs `ping`. A controller is started when --controllers
 * enables it (`*` = the on-by-default ones, `name` enables, `-name` disables; a later entry
 * does not override an earlier one naming the same controller, as the first match decides)
 * and it applies: serviceaccount-token-controller needs --service-account-private-key-file,
 * node-ipam-controller --allocate-node-cidrs, garbage-collector-controller
 * --enable-garbage-collector; the three cloud controllers never start without an in-tree
 * cloud provider, which 1.35 no longer has. Not modelled: controllers a feature gate turns
 * off, and ones whose start fails on their files (the certificate signer) — counted started.
 */

import { CONTROLLERS, CONTROLLERS_DISABLED_BY_DEFAULT, LEGACY_CONTROLLER_ALIASES } from "./catalog/controllers.js";
import type { OptionView } from "./options/view.js";

/** doc3's example loops (replication, endpoints, namespace, service-account), by their controller names. */
export const CORE_CONTROL_LOOPS: readonly string[] = [
  "replicationcontroller-controller",
  "endpoints-controller",
  "namespace-controller",
  "serviceaccount-controller",
];

/** Controllers that need a cloud provider; a 1.35 controller manager skips them. */
const CLOUD_CONTROLLERS: readonly string[] = ["cloud-node-lifecycle-controller", "node-route-controller", "service-lb-controller"];

/** The name a --controllers entry means (pre-1.28 names resolved). */
const canonicalController = (name: string): string => LEGACY_CONTROLLER_ALIASES.get(name) ?? name;

/** Whether --controllers (its entries; undefined = the default `*`) enables `name`: the first entry naming it decides, else `*`. */
export function controllerEnabled(name: string, entries: readonly string[] | undefined): boolean {
  const list = entries ?? ["*"];
  for (const e of list) {
    if (canonicalController(e) === name) return true;
    if (e.startsWith("-") && canonicalController(e.slice(1)) === name) return false;
  }
  return list.includes("*") && !CONTROLLERS_DISABLED_BY_DEFAULT.includes(name);
}

/** The controllers --controllers disables by name (`-name`), canonical and known. */
export function controllersDisabledByName(entries: readonly string[] | undefined): string[] {
  return (entries ?? [])
    .filter((e) => e.startsWith("-"))
    .map((e) => canonicalController(e.slice(1)))
    .filter((n) => CONTROLLERS.includes(n));
}

/** The controllers a controller manager with this command line starts, serviceaccount-token-controller first. */
function startedControllers(view: OptionView): string[] {
  const entries = view.list("--controllers");
  const applies = (name: string): boolean => {
    if (CLOUD_CONTROLLERS.includes(name)) return false;
    if (name === "serviceaccount-token-controller") return view.set("--service-account-private-key-file");
    if (name === "node-ipam-controller") return view.bool("--allocate-node-cidrs") === true;
    if (name === "garbage-collector-controller") return view.bool("--enable-garbage-collector") !== false;
    return true;
  };
  const started = CONTROLLERS.filter((n) => controllerEnabled(n, entries) && applies(n));
  // The token controller is started before the others, so its check comes first.
  return [...started.filter((n) => n === "serviceaccount-token-controller"), ...started.filter((n) => n !== "serviceaccount-token-controller")];
}

/** The named checks of /healthz, in the order a real controller manager lists them (the others' order is Go map order there). */
export function controllerManagerHealthChecks(view: OptionView): string[] {
  const checks = [...(view.bool("--leader-elect") !== false ? ["leaderElection"] : []), ...startedControllers(view)];
  return checks.length > 0 ? checks : ["ping"];
}

/** One line of a `?verbose` healthz body: `[+]name ok`, `[+]name excluded: ok` or `[-]name failed: reason withheld`. */
export interface HealthCheckLine {
  readonly name: string;
  readonly ok: boolean;
}

/** The check lines of a `?verbose` healthz body; other lines (the closing `healthz check passed`, warnings) are left out. */
export function parseVerboseHealth(body: string): HealthCheckLine[] {
  const lines: HealthCheckLine[] = [];
  for (const line of body.split("\n")) {
    const m = /^\[([+-])\](\S+) /.exec(line);
    if (m?.[1] && m[2]) lines.push({ name: m[2], ok: m[1] === "+" });
  }
  return lines;
}
