/** Rules on options both daemons have: the TLS serving pair and versions, and --version. */
import { DAEMON_NAMES, INSECURE_CIPHER_SUITES } from "../catalog/index.js";
import type { OptionView } from "../options/view.js";
import { parseGoBool } from "../values/go-scalars.js";
import type { Report } from "./check.js";

/** The serving certificate and key go together; old TLS versions and insecure suites are worth a warning. */
export function checkTls(view: OptionView, r: Report): void {
  const cm = view.line.daemon === "controller-manager";
  const cert = view.set("--tls-cert-file");
  const key = view.set("--tls-private-key-file");
  const pairRule = cm ? "doc3.cm-general.tls-cert-key-together" : "doc3.agent-options.tls-cert-key-together";
  if (cert !== key && view.known("--tls-cert-file") && view.known("--tls-private-key-file")) {
    const [has, lacks] = cert ? ["--tls-cert-file", "--tls-private-key-file"] : ["--tls-private-key-file", "--tls-cert-file"];
    r.error(lacks, pairRule, `${has} is given without ${lacks}: the certificate and its private key go together`);
  }
  if (cert && key && view.given("--cert-dir")) {
    r.note(
      "--cert-dir",
      cm ? "doc3.cm-general.cert-dir-ignored-with-files" : "doc3.agent-options.cert-dir-ignored-with-files",
      "--cert-dir is ignored because --tls-cert-file and --tls-private-key-file are given",
    );
  }
  const min = view.raw("--tls-min-version");
  if (min === "VersionTLS10" || min === "VersionTLS11") {
    r.warning(
      "--tls-min-version",
      cm ? "doc3.cm-general.tls-min-version-legacy" : "doc3.agent-options.tls-min-version-legacy",
      `${min} admits TLS ${min === "VersionTLS10" ? "1.0" : "1.1"}, older than TLS 1.2: use VersionTLS12 or VersionTLS13`,
    );
  }
  // Stryker disable next-line ArrayDeclaration: equivalent, no made-up suite is on the insecure list
  for (const suite of view.list("--tls-cipher-suites") ?? []) {
    if (INSECURE_CIPHER_SUITES.includes(suite)) r.warning("--tls-cipher-suites", "doc3.tls.insecure-suites", `${suite} is on doc3's insecure list`);
  }
}

/** --version stops the daemon before it runs, unless it sets the reported version. */
export function checkVersionFlag(view: OptionView, r: Report): void {
  const v = view.raw("--version");
  if (!view.given("--version") || v === undefined) return;
  const off = parseGoBool(v);
  if (off.ok && !off.value) return;
  r.warning(
    "--version",
    "doc3.versioning.version-flag",
    v.startsWith("v")
      ? `--version=${v} sets the version the daemon reports`
      : `--version${v === "true" ? "" : `=${v}`} prints the version and exits: the ${DAEMON_NAMES[view.line.daemon]} will not run`,
  );
}
