/**
 * JSON parsing that also reports duplicate object keys, for doc1 "Field validation
 * behaviour" (a duplicated field is a Warning item under `Warn`, a 400 under `Strict`).
 *
 * The message format of the real server, with field paths, is taken from the Kubernetes
 * integration test test/integration/apiserver/field_validation_test.go (kubernetes/kubernetes):
 * the Warning text is `duplicate field "spec.template.spec.containers[0].imagePullPolicy"`
 * (no `json:` prefix), and a Strict request fails with
 * `strict decoding error: duplicate field "metadata.name", unknown field "…", …`.
 * Paths join object keys with `.` and write array positions as `[i]`; the value kept for a
 * repeated key is the last one, as with `JSON.parse`.
 *
 * How: `JSON.parse` cannot see duplicates (the object keeps only the last value) and its
 * Node 20 errors do not always carry a position. @humanwhocodes/momoa (ESLint's JSON
 * parser; `@eslint/json`'s no-duplicate-keys rule is built on it) gives an AST with every
 * member, and its errors carry line, column and offset. The value itself still comes from
 * `JSON.parse`, which is the reference for what JSON is (momoa accepts raw control characters
 * inside strings; JSON.parse does not) and makes a `__proto__` key an own property.
 */
import { parse as parseAst, type ValueNode } from "@humanwhocodes/momoa";

export interface StrictJsonResult {
  value: unknown;
  /** Paths of repeated keys, one per repeated occurrence, in document order
   * (`metadata.name`, `items[0].metadata.name`; a key repeated at the root is just its name). */
  duplicates: string[];
}

/** A malformed document. `offset` counts UTF-16 code units from 0; line and column count from 1. */
export class JsonSyntaxError extends SyntaxError {
  override name = "JsonSyntaxError";
  constructor(
    message: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

function locate(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

interface PositionedError {
  message: string;
  offset: number;
}

function asPositioned(e: unknown): PositionedError | undefined {
  if (!(e instanceof Error)) return undefined;
  const offset = (e as { offset?: unknown }).offset;
  if (typeof offset !== "number") return undefined;
  // momoa appends " (line:column)"; the position is reported separately here.
  const message = e.message.replace(/ \(\d+:\d+\)$/, "");
  return { message, offset };
}

function syntaxError(text: string, message: string, offset: number): JsonSyntaxError {
  const { line, column } = locate(text, offset);
  return new JsonSyntaxError(`invalid JSON at line ${line}, column ${column} (offset ${offset}): ${message}`, offset, line, column);
}

/** `path` is undefined at the root, so that an empty key still gets its "." separator. */
function collectDuplicates(node: ValueNode, path: string | undefined, out: string[]): void {
  if (node.type === "Array") {
    for (const [i, el] of node.elements.entries()) collectDuplicates(el.value, `${path ?? ""}[${i}]`, out);
    return;
  }
  if (node.type !== "Object") return;
  const seen = new Set<string>();
  for (const member of node.members) {
    // In JSON mode every name is a String node; its value has the escapes decoded, so
    // "a" and "\u0061" are the same key, as they are to the server.
    const name = member.name.type === "String" ? member.name.value : member.name.name;
    const memberPath = path === undefined ? name : `${path}.${name}`;
    if (seen.has(name)) out.push(memberPath);
    else seen.add(name);
    collectDuplicates(member.value, memberPath, out);
  }
}

/**
 * Parses JSON text, returning the value and the paths of duplicated keys. Throws a
 * `JsonSyntaxError` (a SyntaxError) with line, column and offset on malformed input.
 */
export function parseJsonStrict(text: string): StrictJsonResult {
  let body: ValueNode;
  try {
    body = parseAst(text, { mode: "json" }).body;
  } catch (e) {
    const p = asPositioned(e);
    if (!p) throw e;
    // momoa places "unexpected end of input" at the last token it read (offset 0 for blank
    // text); the end of the text is where the input is missing.
    const offset = p.message.startsWith("Unexpected end of input") ? text.length : p.offset;
    throw syntaxError(text, p.message, offset);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // Only what momoa lets through reaches here (a raw control character in a string).
    const message = e instanceof Error ? e.message : String(e);
    const m = /at position (\d+)/.exec(message);
    const offset = m ? Number(m[1]) : 0;
    throw syntaxError(text, message, offset);
  }
  const duplicates: string[] = [];
  collectDuplicates(body, undefined, duplicates);
  return { value, duplicates };
}

/** The server's Warning text for one duplicated field (see the module comment). */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`;
}
