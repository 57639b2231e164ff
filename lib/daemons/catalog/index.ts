/** Look-ups over the catalogs, by the names a real command line uses. */
import { controllerManagerTables } from "./controller-manager.js";
import { gates } from "./gates.js";
import { nodeAgentTables } from "./node-agent.js";
import { type Daemon, type GateSpec, type OptionSpec, type OptionTable, realGateName, realOptionName } from "./types.js";

export { INSECURE_CIPHER_SUITES, PREFERRED_CIPHER_SUITES } from "./ciphers.js";
export { controllerManagerTables } from "./controller-manager.js";
export { CONTROLLERS, CONTROLLERS_DISABLED_BY_DEFAULT, LEGACY_CONTROLLER_ALIASES } from "./controllers.js";
export { ALPHA_GATES, BETA_OFF_GATES, BETA_ON_GATES, gates, META_GATES } from "./gates.js";
export { nodeAgentTables } from "./node-agent.js";
export * from "./types.js";

export interface CatalogEntry {
  readonly spec: OptionSpec;
  readonly table: OptionTable;
  /** What a real daemon calls the option (`--kubelet-cgroups` for doc3's `--nodeagent-cgroups`). */
  readonly realName: string;
}

export interface DaemonCatalog {
  readonly daemon: Daemon;
  /** The real binary name, as a command line copied from a unit file starts. */
  readonly binary: string;
  readonly tables: readonly OptionTable[];
  /** Real long names, `--` included. */
  readonly byName: ReadonlyMap<string, CatalogEntry>;
  /** Short forms, `-` included. */
  readonly byShort: ReadonlyMap<string, CatalogEntry>;
  /** doc3 spellings that differ from the real name. */
  readonly byDoc3Name: ReadonlyMap<string, CatalogEntry>;
}

function build(daemon: Daemon, binary: string, tables: readonly OptionTable[]): DaemonCatalog {
  const byName = new Map<string, CatalogEntry>();
  const byShort = new Map<string, CatalogEntry>();
  const byDoc3Name = new Map<string, CatalogEntry>();
  for (const table of tables) {
    for (const spec of table.options) {
      const entry: CatalogEntry = { spec, table, realName: realOptionName(spec.name) };
      byName.set(entry.realName, entry);
      if (spec.short) byShort.set(spec.short, entry);
      if (entry.realName !== spec.name) byDoc3Name.set(spec.name, entry);
    }
  }
  return { daemon, binary, tables, byName, byShort, byDoc3Name };
}

export const catalogs: Readonly<Record<Daemon, DaemonCatalog>> = {
  "controller-manager": build("controller-manager", "kube-controller-manager", controllerManagerTables),
  "node-agent": build("node-agent", "kubelet", nodeAgentTables),
};

export interface GateEntry {
  readonly spec: GateSpec;
  readonly realName: string;
}

/** Gates by real name (`KubeletPSI`). */
export const gatesByName: ReadonlyMap<string, GateEntry> = new Map(gates.map((spec) => [realGateName(spec.name), { spec, realName: realGateName(spec.name) }]));

/** Gates whose doc3 spelling differs from the real name (`AgentPSI`), by that spelling. */
export const gatesByDoc3Name: ReadonlyMap<string, GateEntry> = new Map(
  gates.filter((g) => realGateName(g.name) !== g.name).map((spec) => [spec.name, { spec, realName: realGateName(spec.name) }]),
);
