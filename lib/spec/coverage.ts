/**
 * Which catalog rules the tests examine, read from the tests' metadata without running them: the
 * `rules` (and `needs`) of every `check({ title, rules, needs }, fn)` declaration in suites/, and
 * of every `clientDuty({ title, rules }, fn)` in the unit tests (test/), which may name only the
 * client duties (`subject: "client"`) that tollgate's own client code keeps. A rule id quoted
 * anywhere else (a comment, a message, test data) counts for nothing.
 *
 * The declarations are parsed (oxc, through rolldown's parseAst), not matched as text. A rules
 * list must be statically known: string literals, spreads of module-level constant arrays, or a
 * property of the loop variable of a `for (const c of TABLE)` over a constant array of objects
 * (a table-driven test). Anything else is reported as unreadable, so coverage never guesses.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseAst } from "rolldown/parseAst";
import type { Rule } from "./types.js";

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...testFiles(full));
    else if (/\.test\.ts$/.test(entry)) out.push(full);
  }
  return out;
}

export interface Declaration {
  file: string;
  line: number;
  /** `check` (a conformance test) or `clientDuty` (a unit test of tollgate's own client). */
  kind: "check" | "clientDuty";
  rules: string[];
  needs: string[];
}

export interface Coverage {
  /** rule id → files whose declarations name it */
  tested: Map<string, string[]>;
  untested: Rule[];
  /** ids declared that the catalog does not have */
  unknown: { id: string; file: string }[];
  /** declarations whose rules or needs are not statically known, or clientDuty naming a server rule */
  problems: string[];
  declarations: Declaration[];
}

// A minimal view of the ESTree nodes oxc produces; only what the scan reads.
interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && typeof (v as Node).type === "string";

/** Strips `as const`, `satisfies T` and parentheses. */
function unwrap(n: Node): Node {
  let cur = n;
  while (cur.type === "TSAsExpression" || cur.type === "TSSatisfiesExpression" || cur.type === "ParenthesizedExpression" || cur.type === "TSNonNullExpression")
    cur = cur.expression as Node;
  return cur;
}

type Scope = Map<string, Node>;

class Unreadable extends Error {}

function propertyOf(obj: Node, name: string): Node | undefined {
  for (const p of (obj.properties as Node[]) ?? []) {
    if (p.type !== "Property") continue;
    const key = p.key as Node;
    if ((key.type === "Identifier" && key.name === name) || (key.type === "Literal" && key.value === name)) return p.value as Node;
  }
  return undefined;
}

/** The string values an expression stands for. */
function strings(n: Node, consts: Scope, loops: Map<string, Node[]>): string[] {
  const e = unwrap(n);
  if (e.type === "Literal" && typeof e.value === "string") return [e.value];
  if (e.type === "TemplateLiteral" && (e.expressions as Node[]).length === 0)
    return [String(((e.quasis as Node[])[0]?.value as { cooked?: string })?.cooked ?? "")];
  if (e.type === "ArrayExpression") {
    return (e.elements as (Node | null)[]).flatMap((el) => {
      if (!el) return [];
      if (el.type === "SpreadElement") return strings(el.argument as Node, consts, loops);
      return strings(el, consts, loops);
    });
  }
  if (e.type === "Identifier") {
    const bound = consts.get(e.name as string);
    if (bound) return strings(bound, consts, loops);
  }
  if (e.type === "MemberExpression" && !e.computed) {
    const obj = unwrap(e.object as Node);
    const prop = (e.property as Node).name as string;
    if (obj.type === "Identifier") {
      const rows = loops.get(obj.name as string);
      if (rows) {
        return rows.flatMap((row) => {
          const r = unwrap(row);
          if (r.type !== "ObjectExpression") throw new Unreadable(`a row of the loop over ${String(obj.name)} is not an object literal`);
          const v = propertyOf(r, prop);
          return v ? strings(v, consts, loops) : [];
        });
      }
    }
  }
  throw new Unreadable(`cannot read ${e.type} statically`);
}

/** Walks the AST with the loop bindings in force: `for (const x of CONST_ARRAY)` binds x to the array's rows. */
function walk(n: unknown, consts: Scope, loops: Map<string, Node[]>, visit: (call: Node, loops: Map<string, Node[]>) => void): void {
  if (Array.isArray(n)) {
    for (const x of n) walk(x, consts, loops, visit);
    return;
  }
  if (!isNode(n)) return;
  if (n.type === "CallExpression") visit(n, loops);
  let inner = loops;
  if (n.type === "ForOfStatement") {
    const left = n.left as Node;
    const decl = left.type === "VariableDeclaration" ? ((left.declarations as Node[])[0]?.id as Node | undefined) : undefined;
    const right = unwrap(n.right as Node);
    const source = right.type === "Identifier" ? consts.get(right.name as string) : right;
    const rows = source && unwrap(source).type === "ArrayExpression" ? ((unwrap(source).elements as (Node | null)[]).filter(Boolean) as Node[]) : undefined;
    if (decl?.type === "Identifier" && rows) inner = new Map([...loops, [decl.name as string, rows]]);
  }
  for (const [key, value] of Object.entries(n)) if (key !== "type" && typeof value === "object") walk(value, consts, inner, visit);
}

/** The declarations of one test file. */
export function declarationsIn(source: string, file: string, kind: Declaration["kind"]): { declarations: Declaration[]; problems: string[] } {
  const ast = parseAst(source, { lang: "ts" }, file) as unknown as Node;
  // Every `const NAME = ...` of the file, at any depth; a name declared twice is ambiguous and left out.
  const consts: Scope = new Map();
  const twice = new Set<string>();
  const collect = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(collect);
    if (!isNode(n)) return;
    if (n.type === "VariableDeclaration" && n.kind === "const") {
      for (const v of n.declarations as Node[]) {
        const id = v.id as Node;
        if (id.type !== "Identifier" || !v.init) continue;
        if (consts.has(id.name as string)) twice.add(id.name as string);
        consts.set(id.name as string, v.init as Node);
      }
    }
    for (const [key, value] of Object.entries(n)) if (key !== "type" && typeof value === "object") collect(value);
  };
  collect(ast.body);
  for (const name of twice) consts.delete(name);
  const lineOf = (pos: number): number => source.slice(0, pos).split("\n").length;
  const declarations: Declaration[] = [];
  const problems: string[] = [];
  walk(ast.body, consts, new Map(), (call, loops) => {
    const callee = call.callee as Node;
    if (callee.type !== "Identifier" || callee.name !== kind) return;
    const first = (call.arguments as Node[])[0];
    const where = `${file}:${lineOf(call.start)}`;
    if (!first || unwrap(first).type !== "ObjectExpression") {
      problems.push(`${where}: ${String(callee.name)}(...) takes a declaration object { title, rules, needs } first`);
      return;
    }
    const obj = unwrap(first);
    const read = (prop: string): string[] => {
      const v = propertyOf(obj, prop);
      if (!v) return [];
      try {
        return strings(v, consts, loops);
      } catch (e) {
        if (!(e instanceof Unreadable)) throw e;
        problems.push(
          `${where}: the ${prop} of this declaration are not statically known (${e.message}); use literals, constant arrays or a table the loop reads`,
        );
        return [];
      }
    };
    declarations.push({ file, line: lineOf(call.start), kind, rules: read("rules"), needs: read("needs") });
  });
  return { declarations, problems };
}

export function computeCoverage(rules: readonly Rule[], suitesDir: string, root = process.cwd(), clientTestsDir?: string): Coverage {
  const byId = new Map(rules.map((r) => [r.id, r]));
  const tested = new Map<string, string[]>();
  const unknown: { id: string; file: string }[] = [];
  const problems: string[] = [];
  const declarations: Declaration[] = [];
  const add = (id: string, rel: string): void => {
    const files = tested.get(id) ?? [];
    if (!files.includes(rel)) files.push(rel);
    tested.set(id, files);
  };
  const scan = (dir: string, kind: Declaration["kind"]): void => {
    for (const file of testFiles(dir)) {
      const rel = relative(root, file);
      const found = declarationsIn(readFileSync(file, "utf8"), rel, kind);
      problems.push(...found.problems);
      for (const d of found.declarations) {
        declarations.push(d);
        for (const id of d.rules) {
          const rule = byId.get(id);
          if (!rule) unknown.push({ id, file: rel });
          else if (kind === "clientDuty" && rule.subject !== "client")
            problems.push(`${d.file}:${d.line}: clientDuty names ${id}, which binds the server, not clients`);
          else add(id, rel);
        }
      }
    }
  };
  scan(suitesDir, "check");
  if (clientTestsDir !== undefined) scan(clientTestsDir, "clientDuty");
  return { tested, untested: rules.filter((r) => !tested.has(r.id) && r.unobservable === undefined), unknown, problems, declarations };
}
