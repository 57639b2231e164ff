/**
 * Field selectors (`f=v`, `f==v`, `f!=v`; comma = AND; `\,` `\=` `\\` escapes), matched
 * against the selectable fields a strategy exposes. Unknown labels are rejected with the
 * server's `field label not supported: <label>`.
 */
import { SelectorError } from "./label-selector.js";

export interface FieldRequirement {
  readonly field: string;
  readonly operator: "=" | "!=";
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  matches(fields: Readonly<Record<string, string>>): boolean;
}

/** Splits on commas that are not escaped with a backslash. */
function splitTerms(input: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < input.length; i++) {
    if (input[i] === "\\") i++;
    else if (input[i] === ",") {
      terms.push(input.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(input.slice(start));
  return terms;
}

/** The first unescaped operator, tried as `!=`, `==`, then `=` at each position. */
function splitTerm(term: string): { lhs: string; op: "=" | "!="; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === "\\") {
      i++;
      continue;
    }
    for (const op of ["!=", "==", "="] as const) {
      if (term.startsWith(op, i)) {
        return { lhs: term.slice(0, i), op: op === "!=" ? "!=" : "=", rhs: term.slice(i + op.length) };
      }
    }
  }
  return undefined;
}

function unescapeValue(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = value[i + 1];
    if (next !== "\\" && next !== "," && next !== "=") throw new SelectorError(`invalid field selector: invalid escape sequence: ${value}`);
    out += next;
    i++;
  }
  return out;
}

export function parseFieldSelector(input: string, allowedFields: readonly string[]): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(input).sort()) {
    if (term === "") continue;
    const parts = splitTerm(term);
    if (!parts) throw new SelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
    if (!allowedFields.includes(parts.lhs)) throw new SelectorError(`field label not supported: ${parts.lhs}`);
    requirements.push({ field: parts.lhs, operator: parts.op, value: unescapeValue(parts.rhs) });
  }
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (fields) => requirements.every((r) => ((fields[r.field] ?? "") === r.value) === (r.operator === "=")),
  };
}
