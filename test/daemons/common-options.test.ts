/**
 * The options both daemons share (lib/daemons/checker/common-options.ts): the serving pair, the
 * TLS versions and suites, and --version, with the messages `tollgate flags check` prints, since
 * the message is what tells an operator what to change.
 */
import { describe, expect, it } from "vitest";
import type { Daemon } from "../../lib/daemons/catalog/index.js";
import { INSECURE_CIPHER_SUITES } from "../../lib/daemons/catalog/index.js";
import { checkFlags, type Finding } from "../../lib/daemons/checker/index.js";

const about = (daemon: Daemon, argv: string[], rule: RegExp): Finding[] => checkFlags(daemon, argv).filter((f) => rule.test(f.rule));
const TLS = /tls|cert-dir/;

describe("the serving certificate and key", () => {
  it("go together: the missing one is the error, naming the one given", () => {
    expect(about("controller-manager", ["--tls-cert-file=/c.crt"], TLS)).toEqual([
      {
        severity: "error",
        option: "--tls-private-key-file",
        rule: "doc3.cm-general.tls-cert-key-together",
        message: "--tls-cert-file is given without --tls-private-key-file: the certificate and its private key go together",
      },
    ]);
    expect(about("node-agent", ["--tls-private-key-file=/c.key"], TLS)).toEqual([
      {
        severity: "error",
        option: "--tls-cert-file",
        rule: "doc3.agent-options.tls-cert-key-together",
        message: "--tls-private-key-file is given without --tls-cert-file: the certificate and its private key go together",
      },
    ]);
  });

  it("are not judged when a --config file may set the other", () => {
    expect(about("node-agent", ["--config=/c.yaml", "--tls-cert-file=/c.crt"], TLS)).toEqual([]);
    expect(about("node-agent", ["--config=/c.yaml", "--tls-private-key-file=/c.key"], TLS)).toEqual([]);
  });

  it("make --cert-dir ignored only when both are given", () => {
    expect(about("node-agent", ["--tls-cert-file=/c.crt", "--tls-private-key-file=/c.key", "--cert-dir=/d"], TLS)).toEqual([
      {
        severity: "note",
        option: "--cert-dir",
        rule: "doc3.agent-options.cert-dir-ignored-with-files",
        message: "--cert-dir is ignored because --tls-cert-file and --tls-private-key-file are given",
      },
    ]);
    expect(about("controller-manager", ["--tls-cert-file=/c.crt", "--tls-private-key-file=/c.key", "--cert-dir=/d"], TLS).map((f) => f.rule)).toEqual([
      "doc3.cm-general.cert-dir-ignored-with-files",
    ]);
    expect(about("controller-manager", ["--tls-cert-file=/c.crt", "--cert-dir=/d"], TLS).map((f) => f.rule)).toEqual(["doc3.cm-general.tls-cert-key-together"]);
    expect(about("controller-manager", ["--tls-private-key-file=/c.key", "--cert-dir=/d"], TLS).map((f) => f.rule)).toEqual([
      "doc3.cm-general.tls-cert-key-together",
    ]);
  });
});

describe("TLS versions and suites", () => {
  it("warn about TLS 1.0 and 1.1, naming the version", () => {
    expect(about("controller-manager", ["--tls-min-version=VersionTLS10"], TLS)).toEqual([
      {
        severity: "warning",
        option: "--tls-min-version",
        rule: "doc3.cm-general.tls-min-version-legacy",
        message: "VersionTLS10 admits TLS 1.0, older than TLS 1.2: use VersionTLS12 or VersionTLS13",
      },
    ]);
    expect(about("node-agent", ["--tls-min-version=VersionTLS11"], TLS)).toEqual([
      {
        severity: "warning",
        option: "--tls-min-version",
        rule: "doc3.agent-options.tls-min-version-legacy",
        message: "VersionTLS11 admits TLS 1.1, older than TLS 1.2: use VersionTLS12 or VersionTLS13",
      },
    ]);
    expect(about("node-agent", ["--tls-min-version=VersionTLS12"], TLS)).toEqual([]);
  });

  it("warn about each insecure suite by name", () => {
    const insecure = INSECURE_CIPHER_SUITES[0] as string;
    expect(about("node-agent", [`--tls-cipher-suites=${insecure},TLS_AES_128_GCM_SHA256`], TLS)).toEqual([
      { severity: "warning", option: "--tls-cipher-suites", rule: "doc3.tls.insecure-suites", message: `${insecure} is on doc3's insecure list` },
    ]);
  });
});

describe("--version", () => {
  const version = (daemon: Daemon, argv: string[]): string[] => about(daemon, argv, /version-flag/).map((f) => `${f.severity} ${f.option} ${f.message}`);

  it("stops the daemon unless false, and says which daemon", () => {
    expect(version("controller-manager", ["--version"])).toEqual([
      "warning --version --version prints the version and exits: the controller manager will not run",
    ]);
    expect(version("node-agent", ["--version=true"])).toEqual(["warning --version --version prints the version and exits: the node agent will not run"]);
    expect(version("node-agent", ["--version=raw"])).toEqual(["warning --version --version=raw prints the version and exits: the node agent will not run"]);
    expect(version("node-agent", ["--version=false"])).toEqual([]);
    expect(version("node-agent", [])).toEqual([]);
  });

  it("with a version, sets the version the daemon reports", () => {
    expect(version("node-agent", ["--version=v1.35.0"])).toEqual(["warning --version --version=v1.35.0 sets the version the daemon reports"]);
    expect(version("node-agent", ["--version=1.35v"])).toEqual(["warning --version --version=1.35v prints the version and exits: the node agent will not run"]);
  });
});
