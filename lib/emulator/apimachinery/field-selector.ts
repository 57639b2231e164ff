/**
 * Field selectors, with the grammar of the server's parser (apimachinery pkg/fields/selector.go):
 * terms split on commas not escaped with a backslash, sorted; each term split at the first
 * `!=`, `==` or `=` anywhere in it (the field name has no escapes); the value unescaped with
 * `\,` `\=` `\\` only, refusing any other escape and an unescaped `=`. The one parser of the
 * emulator: the list's filter and the authorizer's name (request-attributes.ts) both read a
 * selector through parseFieldRequirements, so they cannot disagree on what it selects.
 * Unknown labels are rejected afterwards with the server's `field label not supported: <label>`.
 */
import { SelectorError } from "./label-selector.js";

export interface FieldRequirement {
  readonly field: string;
  /** `==` is `=`. */
  readonly operator: "=" | "!=";
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  matches(fields: Readonly<Record<string, string>>): boolean;
}

/** Splits on commas that are not escaped; the escapes stay in the terms. */
function splitTerms(input: string): string[] {
  if (input === "") return [];
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

/** The first operator at any position, `!=` before `==` before `=`: the field name has no escapes. */
function splitTerm(term: string): { lhs: string; op: "=" | "!="; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ["!=", "==", "="] as const) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op: op === "!=" ? "!=" : "=", rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** The server's UnescapeValue, with its error texts (an unescaped rune is printed as its code, Go's %v of a rune). */
export function unescapeFieldValue(value: string): string {
  let out = "";
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== "\\" && c !== "," && c !== "=") throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === "\\") inSlash = true;
    else if (c === "," || c === "=") throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new SelectorError("invalid field selector: invalid escape sequence: \\");
  return out;
}

/** The server's EscapeValue: a literal value as a selector value. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Go's sort of strings: byte order of the UTF-8 encoding (not JavaScript's UTF-16 order). */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** The requirements of a selector, in the server's (sorted) order; throws SelectorError as the server refuses it. */
export function parseFieldRequirements(input: string): FieldRequirement[] {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(input).sort(byteOrder)) {
    if (term === "") continue;
    const parts = splitTerm(term);
    if (!parts) throw new SelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
    requirements.push({ field: parts.lhs, operator: parts.op, value: unescapeFieldValue(parts.rhs) });
  }
  return requirements;
}

/**
 * The value the selector requires the field to equal (the server's RequiresExactMatch): the
 * first `=`/`==` requirement on it, whatever else the selector asks (all terms are ANDed).
 */
export function requiredValue(requirements: readonly FieldRequirement[], field: string): string | undefined {
  return requirements.find((r) => r.field === field && r.operator === "=")?.value;
}

export function parseFieldSelector(input: string, allowedFields: readonly string[]): FieldSelector {
  const requirements = parseFieldRequirements(input);
  // Labels are checked after the whole selector parsed, as the server converts them afterwards.
  for (const r of requirements) if (!allowedFields.includes(r.field)) throw new SelectorError(`field label not supported: ${r.field}`);
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (fields) => requirements.every((r) => ((fields[r.field] ?? "") === r.value) === (r.operator === "=")),
  };
}
