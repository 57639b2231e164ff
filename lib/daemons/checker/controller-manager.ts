/** The controller manager's rules: general options, versions, behaviour, and the certificate signers. */
import { CONTROLLERS, CONTROLLERS_DISABLED_BY_DEFAULT, LEGACY_CONTROLLER_ALIASES } from "../catalog/index.js";
import type { OptionView } from "../options/view.js";
import { parseCidrList } from "../values/addresses.js";
import { closest } from "../values/closest.js";
import { formatDuration } from "../values/durations.js";
import { compareMajorMinor, formatMajorMinor, type MajorMinor, parseMajorMinor, parseVersionSelectors } from "../values/versions.js";
import type { CheckOptions, Report } from "./check.js";
import { checkVersionFlag } from "./common-options.js";

/** The node agent's doc3 default, for the one-daemon form of the cross-daemon rule. */
const AGENT_DEFAULT_STATUS_UPDATE_FREQUENCY = 10_000_000_000n;

/**
 * doc3 asks the node monitor grace period to exceed "the sum of the HTTP/2 ping and
 * read-idle timeouts" without giving them; these are the API client's defaults (15 s and
 * 30 s, settable by environment variables the command line does not show).
 */
const HTTP2_PING_PLUS_READ_IDLE = 45_000_000_000n;

/** kube range of --emulated-version and --min-compatibility-version. */
const KUBE_VERSION_MIN: MajorMinor = { major: 1, minor: 32 };
const KUBE_VERSION_MAX: MajorMinor = { major: 1, minor: 35 };

/** The signer domain of doc3's {signer_domain} on a real cluster. */
const SIGNER_DOMAIN = "kubernetes.io";

export function checkControllerManager(view: OptionView, r: Report, options: CheckOptions): void {
  checkCmGeneral(view, r);
  checkCmVersions(view, r);
  checkCmBehaviour(view, r, options);
  checkCmSigning(view, r);
}

function checkCmGeneral(view: OptionView, r: Report): void {
  const lease = view.duration("--leader-elect-lease-duration");
  const renew = view.duration("--leader-elect-renew-deadline");
  if (lease !== undefined && renew !== undefined && renew >= lease) {
    const on = view.bool("--leader-elect") !== false;
    r.add(
      on ? "error" : "warning",
      "--leader-elect-renew-deadline",
      "doc3.cm-general.renew-deadline-below-lease",
      `renew deadline ${formatDuration(renew)} must be below the lease duration ${formatDuration(lease)}${on ? "" : " (harmless only while --leader-elect=false)"}`,
    );
  }

  const securePort = view.int("--secure-port");
  if (securePort === 0) {
    r.note(
      "--secure-port",
      "doc3.cm-general.secure-port-zero-disables",
      "--secure-port=0 turns HTTPS off: /healthz, /readyz, /livez and metrics are not served",
    );
  }
  const serving = securePort !== 0;
  if (serving && !view.set("--tls-cert-file") && !view.set("--tls-private-key-file")) {
    r.note(
      "--tls-cert-file",
      "doc3.cm-general.self-signed-without-cert",
      "no --tls-cert-file/--tls-private-key-file: a self-signed pair is generated and saved in --cert-dir",
    );
  }
  if (view.given("--http2-max-streams-per-connection") && view.int("--http2-max-streams-per-connection") === 0) {
    r.note("--http2-max-streams-per-connection", "doc3.cm-general.http2-max-streams-zero-default", "0 means the Go HTTP/2 server's own limit, not unlimited");
  }
  if (serving && !view.set("--authentication-kubeconfig")) {
    r.note(
      "--authentication-kubeconfig",
      "doc3.cm-general.authn-kubeconfig-empty-anonymous",
      "no --authentication-kubeconfig: every token request is anonymous and no client CA is looked up",
    );
  }
  if (serving && !view.set("--authorization-kubeconfig")) {
    const paths = (view.list("--authorization-always-allow-paths") ?? []).join(",");
    r.note(
      "--authorization-kubeconfig",
      "doc3.cm-general.authz-kubeconfig-empty-forbidden",
      `no --authorization-kubeconfig: every request outside the always-allow paths (${paths || "none"}) is forbidden`,
    );
  }
  if (view.set("--requestheader-client-ca-file") && (view.list("--requestheader-allowed-names") ?? []).length === 0) {
    r.warning(
      "--requestheader-allowed-names",
      "doc3.cm-general.requestheader-allowed-names-empty-any",
      "empty: any client certificate validated by --requestheader-client-ca-file may assert an identity through the request headers",
    );
  }
  if (view.set("--master") && view.set("--kubeconfig")) {
    r.note("--master", "doc3.cm-general.master-overrides-kubeconfig", "--master overrides the server address in --kubeconfig");
  }
  if (view.bool("--contention-profiling") === true && view.bool("--profiling") === false) {
    r.warning("--contention-profiling", "doc3.cm-general.contention-profiling-needs-profiling", "has no effect while --profiling=false");
  }
  if (view.set("--disabled-metrics") && view.set("--show-hidden-metrics-for-version")) {
    r.note("--disabled-metrics", "doc3.cm-general.disabled-metrics-precedence", "metrics listed here stay disabled even when hidden metrics are shown");
  }
  if (view.set("--allow-metric-labels") && view.set("--allow-metric-labels-manifest")) {
    r.note("--allow-metric-labels", "doc3.cm-general.metric-labels-flag-overrides-manifest", "overrides the mapping read from --allow-metric-labels-manifest");
  }
  checkControllers(view, r);
  checkVersionFlag(view, r);
}

function checkControllers(view: OptionView, r: Report): void {
  if (!view.given("--controllers")) return;
  const entries = view.list("--controllers");
  if (!entries) return;
  const disabledByDefault = new Set(CONTROLLERS_DISABLED_BY_DEFAULT);
  for (const e of entries) {
    if (e === "*" || !/^-?[a-z0-9]+(-[a-z0-9]+)*$/.test(e)) continue;
    const written = e.replace(/^-/, "");
    const alias = LEGACY_CONTROLLER_ALIASES.get(written);
    if (alias) r.note("--controllers", "doc3.cm-general.controllers-known-names", `"${written}" is the pre-1.28 name of ${alias}; still accepted`);
    const name = alias ?? written;
    if (!CONTROLLERS.includes(name)) {
      const c = closest(name, CONTROLLERS);
      r.error("--controllers", "doc3.cm-general.controllers-known-names", `unknown controller "${name}"${c ? ` (did you mean ${c}?)` : ""}`);
    } else if (disabledByDefault.has(name)) {
      r.note(
        "--controllers",
        "doc3.cm-general.controllers-disabled-by-default",
        e.startsWith("-") ? `${name} is already disabled by default` : `${name} is disabled by default; naming it enables it`,
      );
    }
  }
  if (!entries.includes("*")) {
    r.warning(
      "--controllers",
      "doc3.cm-general.controllers-syntax",
      'no "*": only the controllers named here run; write "*,-name" to keep the on-by-default ones',
    );
  }
}

function kubeVersion(view: OptionView, name: string, r: Report, rule: string): MajorMinor | undefined {
  const raw = view.raw(name);
  if (raw === undefined) return undefined;
  const p = parseVersionSelectors(raw);
  if (!p.ok) return undefined;
  let kube: MajorMinor | undefined;
  for (const sel of p.value) {
    if (sel.component !== "kube") {
      r.error(name, rule, `unknown component "${sel.component}": the controller manager emulates only kube`);
      continue;
    }
    kube = sel.version;
  }
  if (kube && view.given(name) && (compareMajorMinor(kube, KUBE_VERSION_MIN) < 0 || compareMajorMinor(kube, KUBE_VERSION_MAX) > 0)) {
    r.error(name, rule, `kube=${formatMajorMinor(kube)} is outside ${formatMajorMinor(KUBE_VERSION_MIN)} to ${formatMajorMinor(KUBE_VERSION_MAX)}`);
    return undefined;
  }
  return kube;
}

function checkCmVersions(view: OptionView, r: Report): void {
  const given = kubeVersion(view, "--emulated-version", r, "doc3.cm-general.emulated-version-range");
  if (given && compareMajorMinor(given, KUBE_VERSION_MAX) !== 0)
    r.note(
      "--emulated-version",
      "doc3.versioning.emulated-version",
      `the controller manager behaves as release ${formatMajorMinor(given)} (its APIs, gates and defaults), not ${formatMajorMinor(KUBE_VERSION_MAX)}`,
    );
  const emulated = given ?? KUBE_VERSION_MAX;
  // doc3 gives kube=1.34 as the default, which is the emulated version minus one minor for the
  // default 1.35; the real default follows the emulated version, so only a given value is compared.
  if (view.given("--min-compatibility-version")) {
    const min = kubeVersion(view, "--min-compatibility-version", r, "doc3.cm-general.min-compat-range");
    if (min && compareMajorMinor(min, emulated) > 0) {
      r.error(
        "--min-compatibility-version",
        "doc3.cm-general.min-compat-not-above-emulated",
        `kube=${formatMajorMinor(min)} is above the emulated version ${formatMajorMinor(emulated)}`,
      );
    }
  }
  const hidden = view.raw("--show-hidden-metrics-for-version");
  if (hidden) {
    const p = parseMajorMinor(hidden);
    const previous = { major: emulated.major, minor: emulated.minor - 1 };
    if (p.ok && compareMajorMinor(p.value, previous) !== 0) {
      r.error(
        "--show-hidden-metrics-for-version",
        "doc3.cm-general.show-hidden-metrics-previous-minor",
        `${hidden} is not the previous minor version: with version ${formatMajorMinor(emulated)} only ${formatMajorMinor(previous)} is accepted`,
      );
    }
  }
}

function checkCmBehaviour(view: OptionView, r: Report, options: CheckOptions): void {
  const allocate = view.bool("--allocate-node-cidrs") === true;
  if (allocate && !view.set("--cluster-cidr")) {
    r.error("--allocate-node-cidrs", "doc3.cm-behaviour.allocate-cidrs-needs-cluster-cidr", "--allocate-node-cidrs=true needs --cluster-cidr");
  }
  if (!allocate && view.set("--cluster-cidr")) {
    r.warning("--cluster-cidr", "doc3.cm-behaviour.cluster-cidr-only-with-allocate", "has no effect without --allocate-node-cidrs=true");
  }
  if (!allocate && view.set("--service-cluster-ip-range")) {
    r.warning("--service-cluster-ip-range", "doc3.cm-behaviour.service-range-only-with-allocate", "has no effect without --allocate-node-cidrs=true");
  }
  const clusterCidr = view.raw("--cluster-cidr");
  const cidrs = clusterCidr ? parseCidrList(clusterCidr) : undefined;
  if (cidrs?.ok) {
    const rule = "doc3.cm-behaviour.node-cidr-mask-default-by-family";
    const single = view.int("--node-cidr-mask-size");
    if (cidrs.value.length === 2 && view.given("--node-cidr-mask-size")) {
      r.warning(
        "--node-cidr-mask-size",
        rule,
        "applies to a single-stack --cluster-cidr; a dual-stack one uses --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6",
      );
    } else if (cidrs.value.length === 1) {
      const family = cidrs.value[0]?.family;
      if (single === undefined)
        r.note("--node-cidr-mask-size", rule, `not given: the IPv${family} --cluster-cidr gets the default mask ${family === 4 ? 24 : 64}`);
      else if (family === 4 && single > 32) r.error("--node-cidr-mask-size", rule, `${single} is no IPv4 mask size, and --cluster-cidr is IPv4`);
    }
  }
  if (view.bool("--enable-garbage-collector") === false) {
    r.warning(
      "--enable-garbage-collector",
      "doc3.cm-behaviour.gc-matches-apiserver",
      "false: the API server must be started with garbage collection off as well",
    );
  }
  if (view.bool("--enable-hostpath-provisioner") === true) {
    r.warning(
      "--enable-hostpath-provisioner",
      "doc3.cm-behaviour.hostpath-provisioner-test-only",
      "host-path provisioning is for testing only, not for a real cluster",
    );
  }
  for (const [name] of view.line.byName) {
    if (view.entry(name).spec.purpose === "development") {
      r.warning(name, "doc3.cm-behaviour.hostpath-recycler-development-only", "host-path recycling is for development only");
    }
  }
  const attach = view.duration("--attach-detach-reconcile-sync-period");
  if (attach !== undefined && attach <= 1_000_000_000n) {
    r.error("--attach-detach-reconcile-sync-period", "doc3.cm-behaviour.attach-detach-sync-above-1s", `${formatDuration(attach)} must exceed one second`);
  }
  const grace = view.duration("--node-monitor-grace-period");
  if (grace !== undefined && grace <= HTTP2_PING_PLUS_READ_IDLE) {
    r.warning(
      "--node-monitor-grace-period",
      "doc3.cm-behaviour.node-monitor-grace-above-http2",
      `${formatDuration(grace)} must exceed the HTTP/2 ping plus read-idle timeouts (${formatDuration(HTTP2_PING_PLUS_READ_IDLE)} with the client defaults)`,
    );
  }
  if (!options.peer && view.given("--node-monitor-grace-period") && grace !== undefined && grace % AGENT_DEFAULT_STATUS_UPDATE_FREQUENCY !== 0n) {
    r.warning(
      "--node-monitor-grace-period",
      "doc3.cm-behaviour.node-monitor-grace-multiple",
      `${formatDuration(grace)} is not a multiple of the node agent's default --node-status-update-frequency (${formatDuration(AGENT_DEFAULT_STATUS_UPDATE_FREQUENCY)}); check both command lines together to compare the real values`,
    );
  }
  const secondary = view.float("--secondary-node-eviction-rate");
  if (view.given("--secondary-node-eviction-rate") && secondary !== undefined && secondary > 0) {
    r.note(
      "--secondary-node-eviction-rate",
      "doc3.cm-behaviour.secondary-eviction-small-clusters",
      `applies only above --large-cluster-size-threshold (${view.int("--large-cluster-size-threshold") ?? "?"} nodes); smaller clusters use 0`,
    );
  }
  if (view.given("--large-cluster-size-threshold")) {
    r.note("--large-cluster-size-threshold", "doc3.cm-behaviour.large-cluster-per-zone", "counts nodes per zone in a multi-zone cluster");
  }
  if (view.given("--unhealthy-zone-threshold")) {
    r.note(
      "--unhealthy-zone-threshold",
      "doc3.cm-behaviour.unhealthy-zone-min-3",
      "a zone counts as unhealthy only with at least 3 not-Ready nodes, whatever the fraction",
    );
  }
  const gcThreshold = view.int("--terminated-pod-gc-threshold");
  if (gcThreshold !== undefined && gcThreshold <= 0) {
    r.note("--terminated-pod-gc-threshold", "doc3.cm-behaviour.terminated-pod-gc-nonpositive-disables", `${gcThreshold} turns terminated-pod collection off`);
  }
  if (view.bool("--disable-force-detach-on-timeout") === true) {
    r.warning(
      "--disable-force-detach-on-timeout",
      "doc3.cm-behaviour.force-detach-needs-graceful-shutdown",
      "volumes are no longer force-detached on timeout: node failures must be handled by graceful node shutdown",
    );
  }
}

interface SigningPair {
  cert: string;
  key: string;
  signer?: string;
}

const SIGNING_PAIRS: readonly SigningPair[] = [
  { cert: "--cluster-signing-cert-file", key: "--cluster-signing-key-file" },
  {
    cert: "--cluster-signing-kube-apiserver-client-cert-file",
    key: "--cluster-signing-kube-apiserver-client-key-file",
    signer: `${SIGNER_DOMAIN}/kube-apiserver-client`,
  },
  {
    cert: "--cluster-signing-kubelet-client-cert-file",
    key: "--cluster-signing-kubelet-client-key-file",
    signer: `${SIGNER_DOMAIN}/kube-apiserver-client-kubelet`,
  },
  { cert: "--cluster-signing-kubelet-serving-cert-file", key: "--cluster-signing-kubelet-serving-key-file", signer: `${SIGNER_DOMAIN}/kubelet-serving` },
  { cert: "--cluster-signing-legacy-unknown-cert-file", key: "--cluster-signing-legacy-unknown-key-file", signer: `${SIGNER_DOMAIN}/legacy-unknown` },
];

function checkCmSigning(view: OptionView, r: Report): void {
  const [generic, ...specific] = SIGNING_PAIRS as [SigningPair, ...SigningPair[]];
  for (const pair of SIGNING_PAIRS) {
    const cert = view.set(pair.cert);
    const key = view.set(pair.key);
    if (cert !== key) {
      const [has, lacks] = cert ? [pair.cert, pair.key] : [pair.key, pair.cert];
      r.error(lacks, "doc3.cm-signing.cert-key-pairs", `${has} is given without ${lacks}`);
    }
    if (pair.signer && (cert || key)) {
      r.note(cert ? pair.cert : pair.key, "doc3.cm-signing.specific-signers", `signs for signer ${pair.signer}`);
    }
  }
  if (view.set(generic.cert) || view.set(generic.key)) {
    for (const pair of specific) {
      for (const name of [pair.cert, pair.key]) {
        if (view.set(name))
          r.error(
            name,
            "doc3.cm-signing.generic-excludes-specific",
            `cannot be combined with ${generic.cert}/${generic.key}: set either the generic pair or the signer-specific ones`,
          );
      }
    }
  }
  const duration = view.duration("--cluster-signing-duration");
  if (duration !== undefined && duration <= 0n) {
    r.error("--cluster-signing-duration", "doc3.cm-signing.duration-maximum", `${formatDuration(duration)} leaves no lifetime for signed certificates`);
  }
}
