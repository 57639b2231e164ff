/**
 * Shapes of the option catalogs. The catalogs keep doc3's own words (Type, Default and Meaning
 * columns verbatim, neutral product names included) so a reader can hold them against the
 * document row by row; what the checker needs beyond the text (how to parse a value, its
 * range, the rule a bad value breaks) sits next to it in typed fields.
 */

export type Daemon = "controller-manager" | "node-agent";

/** How doc3's prose names each daemon, for messages. */
export const DAEMON_NAMES: Readonly<Record<Daemon, string>> = { "controller-manager": "controller manager", "node-agent": "node agent" };

/** How a value is read. Several doc3 types ("string", "pairs") cover values of very different syntax. */
export type ValueKind =
  | "string"
  | "path"
  | "url"
  | "bool"
  | "help"
  | "version"
  | "int"
  | "int32"
  | "float"
  | "duration"
  | "quantity"
  | "strings"
  | "enum"
  | "enumList"
  | "ip"
  | "ipOrEmpty"
  | "ipList"
  | "cidr"
  | "cidrList"
  | "keyValues"
  | "labels"
  | "resourceList"
  | "qosReserved"
  | "thresholds"
  | "signalDurations"
  | "signalQuantities"
  | "reservedMemory"
  | "gates"
  | "componentGates"
  | "taints"
  | "headers"
  | "versions"
  | "majorMinor"
  | "vmodule"
  | "sniCertKey"
  | "metricLabels"
  | "controllers"
  | "cipherSuites"
  | "cpuList"
  | "runtimeEndpoint";

export interface OptionSpec {
  /** Long name as doc3 writes it, `nodeagent` segments included (see realOptionName). */
  readonly name: string;
  readonly short?: string;
  /** doc3's Type column, verbatim. */
  readonly type: string;
  /** doc3's Default column, verbatim. */
  readonly default: string;
  /** doc3's Meaning column, verbatim. */
  readonly meaning: string;
  readonly kind: ValueKind;
  /** The default as a command-line value, where doc3 gives a concrete one. */
  readonly defaultValue?: string;
  /** Allowed values of an enum or enum list. */
  readonly values?: readonly string[];
  /** Inclusive numeric range. */
  readonly min?: number;
  readonly max?: number;
  /** Rule a bad value breaks, when more specific than the table's types-defaults rule. */
  readonly rule?: string;
  /** Rule of the option's default, when doc3 states that default on its own (cited by the "is the default" note). */
  readonly defaultRule?: string;
  /** Feature gate (doc3 spelling) the option needs, with the rule that says so. */
  readonly gate?: { readonly name: string; readonly rule: string };
  /** doc3 marks the option itself Alpha or Beta. */
  readonly stage?: "alpha" | "beta";
  /** Node agent only: doc3 marks the flag "(not deprecated)"; every other node agent flag is deprecated in favour of --config. */
  readonly notDeprecated?: true;
  /** doc3 schedules the flag for removal ("removal in 1.25 or later"). */
  readonly removal?: string;
  /** doc3 deprecates the flag in favour of other flags ("use eviction flags"). */
  readonly replacedBy?: string;
  /** doc3 restricts the option to testing or development. */
  readonly purpose?: "testing" | "development";
}

export interface OptionTable {
  /** The doc3 heading, exactly. */
  readonly title: string;
  readonly daemon: Daemon;
  /** The table's types-defaults rule, cited for values that do not parse for their type. */
  readonly rule: string;
  readonly options: readonly OptionSpec[];
}

export type GateStage = "alpha" | "beta";

export interface GateSpec {
  /** As doc3 writes it (`Agent` for the node agent's product name). */
  readonly name: string;
  readonly stage: GateStage;
  readonly default: boolean;
  /** The doc3 list the gate is in. */
  readonly list: "beta-on" | "beta-off" | "alpha" | "meta";
}

/**
 * doc3 writes the node agent's product name as `nodeagent` in option names; a real command
 * line says `kubelet` (`--cluster-signing-kubelet-client-cert-file`, `--kubelet-cgroups`).
 */
export function realOptionName(doc3Name: string): string {
  return doc3Name.replace(/nodeagent/g, "kubelet");
}

/**
 * doc3 writes gate names with `Agent` where the real name has `Kubelet` (`AgentPSI` is
 * `KubeletPSI`). doc3 says "names that begin with" it, but `RotateAgentServerCertificate`
 * and `ReloadAgentServerCertificateFile` carry it inside too, and their real names are
 * `RotateKubeletServerCertificate` and `ReloadKubeletServerCertificateFile`; no listed gate
 * uses "Agent" as an ordinary word, so every occurrence is replaced.
 */
export function realGateName(doc3Name: string): string {
  return doc3Name.replace(/Agent/g, "Kubelet");
}
