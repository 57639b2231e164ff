/**
 * The option catalogs against doc3: counts per table (so nothing is dropped silently) and,
 * when the document is at hand (../shared/spec), every row's name, type, default and meaning.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ALPHA_GATES,
  BETA_OFF_GATES,
  BETA_ON_GATES,
  CONTROLLERS,
  CONTROLLERS_DISABLED_BY_DEFAULT,
  catalogs,
  controllerManagerTables,
  gates,
  gatesByName,
  INSECURE_CIPHER_SUITES,
  LEGACY_CONTROLLER_ALIASES,
  META_GATES,
  nodeAgentTables,
  type OptionSpec,
  PREFERRED_CIPHER_SUITES,
  realGateName,
  realOptionName,
} from "../../lib/daemons/catalog/index.js";
import { rulesOf } from "../../lib/spec/catalog.js";

const DOC3 = path.resolve(process.cwd(), "../shared/spec/doc3-daemon-options.md");
const haveDoc = existsSync(DOC3);
const itWithDoc = haveDoc ? it : it.skip;

describe("counts per table", () => {
  it("controller manager: 63 general, 20 concurrency, 50 behaviour, 11 signing options", () => {
    expect(controllerManagerTables.map((t) => [t.title.split(":")[1]?.trim().split(" ")[0], t.options.length])).toEqual([
      ["serving,", 63],
      ["concurrency", 20],
      ["controller", 50],
      ["certificate", 11],
    ]);
    expect(controllerManagerTables[1]?.options.filter((o) => /^--concurrent-.*-syncs$/.test(o.name))).toHaveLength(19);
  });

  it("node agent: 128 options (121 rows, the last listing 8 flags)", () => {
    expect(nodeAgentTables.map((t) => t.options.length)).toEqual([128]);
    expect(nodeAgentTables[0]?.options.filter((o) => o.notDeprecated)).toHaveLength(20);
  });

  it("gates: 73 beta on, 13 beta off, 53 alpha, and the two meta gates", () => {
    expect([BETA_ON_GATES.length, BETA_OFF_GATES.length, ALPHA_GATES.length, META_GATES.length]).toEqual([73, 13, 53, 2]);
    expect(gates).toHaveLength(141);
    expect(gatesByName.size).toBe(141);
    expect(gates.filter((g) => g.default).map((g) => g.list)).toEqual(Array(73).fill("beta-on"));
  });

  it("controllers: 50 names, 3 disabled by default; cipher suites: 15 preferred, 12 insecure", () => {
    expect(CONTROLLERS).toHaveLength(50);
    expect(new Set(CONTROLLERS).size).toBe(50);
    expect(CONTROLLERS_DISABLED_BY_DEFAULT).toEqual(["bootstrap-signer-controller", "selinux-warning-controller", "token-cleaner-controller"]);
    for (const target of LEGACY_CONTROLLER_ALIASES.values()) expect(CONTROLLERS).toContain(target);
    expect(PREFERRED_CIPHER_SUITES).toHaveLength(15);
    expect(INSECURE_CIPHER_SUITES).toHaveLength(12);
    expect(PREFERRED_CIPHER_SUITES.filter((s) => INSECURE_CIPHER_SUITES.includes(s))).toEqual([]);
  });
});

describe("entries", () => {
  const all: [string, OptionSpec][] = [...controllerManagerTables, ...nodeAgentTables].flatMap((t) =>
    t.options.map((o): [string, OptionSpec] => [t.daemon, o]),
  );

  it("names are unique per daemon, and real names replace nodeagent with kubelet", () => {
    expect(catalogs["controller-manager"].byName.size).toBe(144);
    expect(catalogs["node-agent"].byName.size).toBe(128);
    expect([...catalogs["controller-manager"].byDoc3Name.keys()]).toEqual([
      "--cluster-signing-nodeagent-client-cert-file",
      "--cluster-signing-nodeagent-client-key-file",
      "--cluster-signing-nodeagent-serving-cert-file",
      "--cluster-signing-nodeagent-serving-key-file",
    ]);
    expect(realOptionName("--nodeagent-cgroups")).toBe("--kubelet-cgroups");
    expect(realGateName("AgentPSI")).toBe("KubeletPSI");
    expect(realGateName("RotateAgentServerCertificate")).toBe("RotateKubeletServerCertificate");
  });

  it("every enum has values, every range is ordered, every concrete default fits its own checks", () => {
    for (const [daemon, o] of all) {
      if (o.kind === "enum" || o.kind === "enumList") expect(o.values?.length, `${daemon} ${o.name}`).toBeGreaterThan(0);
      if (o.min !== undefined && o.max !== undefined) expect(o.min, o.name).toBeLessThan(o.max);
      if (o.kind === "enum" && o.defaultValue !== undefined) expect(o.values, o.name).toContain(o.defaultValue);
    }
  });

  it("every rule named by the catalogs and the checker is a doc3 rule", () => {
    const ids = new Set(rulesOf("doc3").map((r) => r.id));
    const named = new Set<string>();
    for (const [, o] of all) for (const id of [o.rule, o.defaultRule, o.gate?.rule]) if (id) named.add(id);
    for (const t of [...controllerManagerTables, ...nodeAgentTables]) named.add(t.rule);
    const dir = path.resolve(import.meta.dirname, "../../lib/daemons");
    const files = (d: string): string[] =>
      readdirSync(d).flatMap((e) => (statSync(path.join(d, e)).isDirectory() ? files(path.join(d, e)) : [path.join(d, e)]));
    for (const f of files(dir)) for (const m of readFileSync(f, "utf8").matchAll(/"(doc3\.[a-z0-9.-]+)"/g)) named.add(m[1] as string);
    expect([...named].filter((id) => !ids.has(id))).toEqual([]);
  });

  it("every gate an option needs is a listed gate", () => {
    for (const [, o] of all) if (o.gate) expect(gatesByName.has(realGateName(o.gate.name)), o.name).toBe(true);
  });
});

/** The option rows of doc3, by table heading: [name cell, type, default, meaning]. */
function docRows(): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  let heading = "";
  for (const line of readFileSync(DOC3, "utf8").split("\n")) {
    if (line.startsWith("### ")) {
      heading = line.slice(4);
      out.set(heading, []);
    } else if (heading && /^\| \S/.test(line) && !/^\| (Option|Name) \|/.test(line)) {
      const cells = line
        .replace(/\\\|/g, "\u0000")
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim().replace(/\u0000/g, "\\|"));
      out.get(heading)?.push(cells);
    }
  }
  return out;
}

describe("against doc3's text", () => {
  itWithDoc("each option table holds doc3's rows in doc3's order, with doc3's type, default and meaning", () => {
    const rows = docRows();
    for (const table of [...controllerManagerTables, ...nodeAgentTables]) {
      const docTable = rows.get(table.title);
      expect(docTable, table.title).toBeDefined();
      const expected: string[][] = [];
      for (const [name = "", type = "", dflt = "", meaning = ""] of docTable ?? []) {
        if (table.title.startsWith("Controller manager options: concurrency")) {
          expected.push([`--concurrent-${name.split(" ")[0]}-syncs`, "int32", type]);
          continue;
        }
        if (name.includes(" / -key-file")) {
          const cert = name.split(" / ")[0] as string;
          expected.push([cert, type, dflt, meaning], [cert.replace("-cert-file", "-key-file"), type, dflt, meaning]);
        } else if (name.startsWith("--log-flush-frequency, ")) {
          for (const flag of name.split(", ")) expected.push([flag === "-v" ? "--v" : flag === "-h" ? "--help" : flag]);
        } else {
          const long = name.startsWith("--kubelet-cgroups") ? "--nodeagent-cgroups" : name.replace(/^-v, /, "").replace(/^-h, /, "");
          expected.push([long, type, dflt, meaning]);
        }
      }
      const actual = table.options.map((o, i) => {
        const want = expected[i] ?? [];
        if (table.title.startsWith("Controller manager options: concurrency")) return [o.name, o.type, o.default].slice(0, want.length);
        return [o.name, o.type, o.default, o.meaning].slice(0, want.length);
      });
      if (table.title.startsWith("Controller manager options: concurrency")) {
        expect(actual.slice(0, -1), table.title).toEqual(expected);
        expect(table.options.at(-1)?.name).toBe("--mirroring-concurrent-service-endpoint-syncs");
      } else expect(actual, table.title).toEqual(expected);
    }
  });

  itWithDoc("the node agent options doc3 marks (not deprecated) are exactly those marked here, plus --version and -h", () => {
    const marked = (nodeAgentTables[0]?.options ?? []).filter((o) => o.notDeprecated).map((o) => o.name);
    const inDoc = (nodeAgentTables[0]?.options ?? []).filter((o) => o.meaning.includes("(not deprecated)")).map((o) => o.name);
    expect(marked).toEqual([...inDoc, "--version", "--help"]);
  });

  itWithDoc("gate, controller and cipher lists are doc3's, in doc3's order", () => {
    const text = readFileSync(DOC3, "utf8");
    const list = (re: RegExp): string[] => (re.exec(text)?.[1] ?? "").split(";").map((x) => x.trim());
    expect(BETA_ON_GATES).toEqual(list(/\*\*Beta, default on:\*\* (.*?)\.\n/));
    expect(BETA_OFF_GATES).toEqual(list(/\*\*Beta, default off:\*\* (.*?)\.\n/));
    expect(ALPHA_GATES).toEqual(list(/\*\*Alpha, default off:\*\* (.*?)\.\n/));
    expect(CONTROLLERS).toEqual(list(/Controller names \(value set for `--controllers`\): (.*?)\. Disabled/));
    expect(CONTROLLERS_DISABLED_BY_DEFAULT).toEqual(list(/Disabled by default: (.*?)\.\n/));
    expect(PREFERRED_CIPHER_SUITES).toEqual(list(/Preferred: (.*?)\.\n/));
    expect(INSECURE_CIPHER_SUITES).toEqual(list(/Insecure: (.*?)\.\n/));
  });
});
