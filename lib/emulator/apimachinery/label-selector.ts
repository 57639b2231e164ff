/**
 * Label selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`, `a>1`,
 * `a<1`; comma = AND), parsed and matched the way the API server does. Parse failures throw
 * SelectorError; the list handler turns them into 400 BadRequest.
 */
import { labelValue, qualifiedName } from "./name-validation.js";

export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

export interface Requirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

export interface LabelSelector {
  readonly requirements: readonly Requirement[];
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>>): boolean;
}

type Token =
  | { kind: "id"; text: string }
  | { kind: "op"; text: "!" | "=" | "==" | "!=" | "(" | ")" | "," | ">" | "<" }
  | { kind: "in" | "notin" | "end"; text: string };

const SPECIAL = new Set(["!", "=", "(", ")", ",", ">", "<"]);

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] ?? "";
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = input.slice(i, i + 2);
      if (two === "==" || two === "!=") {
        tokens.push({ kind: "op", text: two });
        i += 2;
      } else {
        tokens.push({ kind: "op", text: c as "!" | "=" | "(" | ")" | "," | ">" | "<" });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < input.length && !SPECIAL.has(input[j] ?? "") && !/\s/.test(input[j] ?? "")) j++;
    const text = input.slice(i, j);
    tokens.push(text === "in" || text === "notin" ? { kind: text, text } : { kind: "id", text });
    i = j;
  }
  tokens.push({ kind: "end", text: "" });
  return tokens;
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos] ?? { kind: "end", text: "" };
  }

  private next(): Token {
    const t = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    if (this.peek().kind === "end") return reqs;
    for (;;) {
      reqs.push(this.requirement());
      const t = this.next();
      if (t.kind === "end") return reqs;
      if (!(t.kind === "op" && t.text === ",")) throw new SelectorError(`found '${t.text}', expected: ',' or 'end of string'`);
      if (this.peek().kind === "end") throw new SelectorError("found '', expected: identifier");
    }
  }

  private requirement(): Requirement {
    let t = this.next();
    if (t.kind === "op" && t.text === "!") {
      t = this.next();
      if (t.kind !== "id") throw new SelectorError(`found '${t.text}', expected: identifier after '!'`);
      return validated({ key: t.text, operator: "!", values: [] });
    }
    if (t.kind !== "id") throw new SelectorError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
    const key = t.text;
    const after = this.peek();
    if (after.kind === "end" || (after.kind === "op" && after.text === ",")) {
      return validated({ key, operator: "exists", values: [] });
    }
    const op = this.next();
    if (op.kind === "in" || op.kind === "notin") {
      return validated({ key, operator: op.kind, values: this.valueSet() });
    }
    if (op.kind === "op" && (op.text === "=" || op.text === "==" || op.text === "!=" || op.text === ">" || op.text === "<")) {
      const operator: LabelOperator = op.text === ">" ? "gt" : op.text === "<" ? "lt" : op.text;
      const v = this.peek();
      let value = "";
      if (v.kind === "id") value = this.next().text;
      else if (!(v.kind === "end" || (v.kind === "op" && v.text === ","))) {
        throw new SelectorError(`found '${v.text}', expected: identifier`);
      }
      return validated({ key, operator, values: [value] });
    }
    throw new SelectorError(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
  }

  private valueSet(): string[] {
    const open = this.next();
    if (!(open.kind === "op" && open.text === "(")) throw new SelectorError(`found '${open.text}', expected: '('`);
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === "op" && t.text === ")") return values;
      if (t.kind === "id") {
        values.push(t.text);
        const sep = this.next();
        if (sep.kind === "op" && sep.text === ")") return values;
        if (!(sep.kind === "op" && sep.text === ",")) throw new SelectorError(`found '${sep.text}', expected: ',' or ')'`);
        continue;
      }
      throw new SelectorError(`found '${t.text}', expected: ',', ')' or identifier`);
    }
  }
}

function validated(req: Requirement): Requirement {
  const keyErrs = qualifiedName(req.key);
  if (keyErrs.length) throw new SelectorError(`unable to parse requirement: key: Invalid value: "${req.key}": ${keyErrs.join("; ")}`);
  if (req.operator === "in" || req.operator === "notin") {
    if (req.values.length === 0) {
      throw new SelectorError(`unable to parse requirement: values: Required value: for 'in', 'notin' operators, values set can't be empty`);
    }
  }
  if (req.operator === "gt" || req.operator === "lt") {
    const v = req.values[0] ?? "";
    if (!/^-?[0-9]+$/.test(v)) {
      throw new SelectorError(`unable to parse requirement: values[0]: Invalid value: "${v}": for 'Gt', 'Lt' operators, the value must be an integer`);
    }
    return req;
  }
  req.values.forEach((v, i) => {
    const errs = labelValue(v);
    if (errs.length) throw new SelectorError(`unable to parse requirement: values[${i}][${req.key}]: Invalid value: "${v}": ${errs.join("; ")}`);
  });
  return req;
}

function matchOne(req: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.operator) {
    case "=":
    case "==":
    case "in":
      return has && req.values.includes(value ?? "");
    case "!=":
    case "notin":
      return !has || !req.values.includes(value ?? "");
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || !/^-?[0-9]+$/.test(value ?? "")) return false;
      const n = Number(value);
      const bound = Number(req.values[0]);
      return req.operator === "gt" ? n > bound : n < bound;
    }
  }
}

export function parseLabelSelector(input: string): LabelSelector {
  const requirements = new Parser(lex(input)).parse();
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => matchOne(r, labels)),
  };
}
