/**
 * `application/yaml` bodies (doc1 "Media types and negotiation"; wire-facts §10).
 *
 * The server writes YAML by converting its JSON output, and the YAML writer it uses sorts the
 * keys of every mapping. `toYaml` follows the same path: the value goes through
 * `JSON.stringify` first (so what JSON drops or converts, YAML does too), then js-yaml writes
 * it in block style with the adjustments below, each there to match the server's text:
 *  - key order: the server's YAML writer orders string keys "naturally", not by code unit.
 *    At the first differing character: two letters compare by code point; a non-letter
 *    sorts before a letter; otherwise runs of ASCII digits compare by numeric value (so
 *    `k9` < `k10`), then by run length, then by code point. A key that is a prefix of
 *    another comes first. For plain lowercase/camelCase keys this is ordinary sorting.
 *  - sequences are not indented under their key (`- item` at the key's column);
 *  - a string that would read back as another type (`"true"`, `"1"`, a timestamp, `"y"`)
 *    is double-quoted; one that is only unsafe as a plain scalar (`'x: y'`) is
 *    single-quoted; a string with a line break is a literal block; long lines are not
 *    folded (the server wraps long plain strings over several lines; both read back the same);
 *  - a non-integral number is written like Go's shortest `%g` (`1e-07`, `1.2345675e+06`);
 *  - no anchors or aliases (repeated objects are written out again).
 * Against the golden `.yaml` files of the real serializer (k8s-api-testdata v1.35.0) the
 * text is identical for all 16 types; test/wire/yaml.test.ts checks that.
 *
 * `fromYaml` reads a request or response body: exactly one document whose root is a mapping,
 * with the YAML 1.2 core schema (js-yaml 5's default), so `yes`, `on` and `2020-01-01` stay
 * strings and `<<` merge keys are not applied.
 */
import {
  constructFromEvents,
  DEFAULT_SCALAR_STYLE_RULES,
  DUMP_SCHEMA,
  defineScalarTag,
  dump,
  EVENT_ID,
  type Event,
  load,
  loadAll,
  parseEvents,
  SCALAR_STYLE,
  type ScalarLayout,
  type ScalarTagDefinition,
  visit,
  YAMLException,
} from "js-yaml";

/** Thrown by `fromYaml` for text that is not one YAML mapping. */
export class YamlDecodeError extends Error {
  override name = "YamlDecodeError";
  constructor(
    message: string,
    /** 1-based line and column of the problem, when known. */
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

const isLetter = (c: string): boolean => /\p{L}/u.test(c);
const isDigit = (c: string): boolean => c >= "0" && c <= "9";

/** The ASCII digit run around index i of s (extending back into digits before i). */
function digitRun(s: readonly string[], i: number): { value: bigint; length: number } {
  let start = i;
  while (start > 0 && isDigit(s[start - 1] as string)) start--;
  let end = i;
  while (end < s.length && isDigit(s[end] as string)) end++;
  const digits = s.slice(start, end).join("");
  return { value: digits ? BigInt(digits) : 0n, length: end - i };
}

/** Key order of the server's YAML writer; see the module comment. */
export function compareYamlKeys(a: string, b: string): number {
  const ar = Array.from(a);
  const br = Array.from(b);
  const n = Math.min(ar.length, br.length);
  for (let i = 0; i < n; i++) {
    const ca = ar[i] as string;
    const cb = br[i] as string;
    if (ca === cb) continue;
    const la = isLetter(ca);
    const lb = isLetter(cb);
    if (la && lb) return (ca.codePointAt(0) as number) - (cb.codePointAt(0) as number);
    if (la !== lb) return la ? 1 : -1;
    // Neither is a letter: compare the whole numbers these positions belong to.
    const ra = digitRun(ar, i);
    const rb = digitRun(br, i);
    if (ra.value !== rb.value) return ra.value < rb.value ? -1 : 1;
    if (ra.length !== rb.length) return ra.length - rb.length;
    return (ca.codePointAt(0) as number) - (cb.codePointAt(0) as number);
  }
  return ar.length - br.length;
}

/** Go's shortest `%g`: exponent form when the decimal exponent is < -4 or >= 6, with at
 * least two exponent digits; otherwise plain decimal. */
export function formatGoFloat(x: number): string {
  if (Number.isNaN(x)) return ".nan";
  if (!Number.isFinite(x)) return x > 0 ? ".inf" : "-.inf";
  const [mantissa = "0", expText = "0"] = x.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(x);
}

const FLOAT_TAG = "tag:yaml.org,2002:float";
const baseFloat = DUMP_SCHEMA.tags.find((t): t is ScalarTagDefinition => t.nodeKind === "scalar" && t.tagName === FLOAT_TAG);
if (!baseFloat) throw new Error("js-yaml DUMP_SCHEMA has no float tag");
// Same resolution as js-yaml's float (so quoting decisions do not change), Go's printing.
const goFloatTag = defineScalarTag<number>(FLOAT_TAG, {
  implicit: baseFloat.implicit,
  matchByTagPrefix: baseFloat.matchByTagPrefix,
  implicitFirstChars: baseFloat.implicitFirstChars,
  resolve: baseFloat.resolve as ScalarTagDefinition<number>["resolve"],
  identify: baseFloat.identify,
  represent: (v: number) => formatGoFloat(v),
});
const WRITE_SCHEMA = DUMP_SCHEMA.withTags(goFloatTag);

/** Would this text, written plain, read back as something other than a string? */
function readsAsNonString(text: string): boolean {
  if (text === "") return true; // an empty plain scalar is null
  try {
    const v = load(text, { schema: DUMP_SCHEMA });
    // Collections mean "unsafe syntax", not "another scalar type".
    return v === null || typeof v === "number" || typeof v === "boolean" || v instanceof Date;
  } catch {
    return false;
  }
}

/** For a string that cannot be plain: double quotes when it would read as another type,
 * single quotes when it is only a syntax problem (what the server's writer does). */
function quoteLikeServer(layout: ScalarLayout): void {
  if (layout.style !== SCALAR_STYLE.PLAIN || layout.allowedStylesMask & (1 << SCALAR_STYLE.PLAIN)) return;
  const single = (layout.allowedStylesMask & (1 << SCALAR_STYLE.SINGLE_QUOTED)) !== 0;
  layout.style = single && !readsAsNonString(layout.node.value) ? SCALAR_STYLE.SINGLE_QUOTED : SCALAR_STYLE.DOUBLE_QUOTED;
}

const R = DEFAULT_SCALAR_STYLE_RULES;
const SCALAR_RULES = [
  R.doubleQuoteForInvisibles,
  R.doubleQuoteWhitespaceOnly,
  R.tryLongOrMultilineAsBlock,
  quoteLikeServer,
  R.quoteInvalidPlain,
  R.fallbackToDoubleQuoted,
];

/** The deepest nesting written in block style (js-yaml takes 0.2 s at 500 levels). */
const BLOCK_DEPTH = 200;

/** Whether objects and arrays nest more than `max` deep (iterative, for values of any depth). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v !== "object" || v === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** The YAML text the server would write for this object (see the module comment). */
export function toYaml(obj: unknown): string {
  const json = JSON.stringify(obj);
  if (json === undefined) throw new TypeError(`toYaml: ${typeof obj} has no JSON form`);
  const value: unknown = JSON.parse(json);
  // js-yaml's writer re-indents each nested block (time grows with the cube of the depth:
  // 9 s at 2000 levels) and recurses; past BLOCK_DEPTH levels the text is the JSON form,
  // which reads back as the same YAML value, instead of a frozen server.
  if (nestedDeeperThan(value, BLOCK_DEPTH)) return `${json}\n`;
  return dump(value, {
    schema: WRITE_SCHEMA,
    seqNoIndent: true,
    lineWidth: -1,
    noRefs: true,
    quoteStyle: "double",
    scalarStyleRules: SCALAR_RULES,
    transform: (docs) =>
      visit(docs, (node) => {
        if (node.kind !== "mapping") return;
        node.items.sort((x, y) => compareYamlKeys(x.key.kind === "scalar" ? x.key.value : "", y.key.kind === "scalar" ? y.key.value : ""));
      }),
  });
}

export interface FromYamlOptions {
  /**
   * Repeated keys in one mapping. Default false: an error, as a strict decode reports it.
   * True: the last value wins, as the server does under `fieldValidation=Ignore`.
   */
  allowDuplicateKeys?: boolean;
  /**
   * The server's YAML reader's limits (go-yaml v2, see YamlLimitError) instead of js-yaml's
   * default nesting limit of 100: for reading untrusted request bodies.
   */
  serverLimits?: boolean;
}

/**
 * A document the server's YAML reader (go-yaml v2.4, under sigs.k8s.io/yaml) refuses for its
 * size or its aliases rather than its syntax; the message is that reader's, `yaml: …`.
 */
export class YamlLimitError extends YamlDecodeError {
  override name = "YamlLimitError";
}

/** A document nested deeper than js-yaml's recursive reader follows (about 1500 levels), though within go-yaml's limit. */
export class YamlTooDeepError extends YamlDecodeError {
  override name = "YamlTooDeepError";
  constructor() {
    super("invalid YAML: nesting deeper than this reader follows");
  }
}

/** go-yaml v2's nesting limit (scannerc.go max_flow_level and max_indents). */
const MAX_YAML_DEPTH = 10000;

/**
 * go-yaml v2's share of decoded nodes that may come from alias expansion (decode.go
 * allowedAliasRatio): 99% up to 400,000 decoded nodes, 10% from 4,000,000, linear between.
 */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= 400_000) return 0.99;
  if (decodeCount >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - 400_000) / 3_600_000);
}

const excessive = (aliasCount: number, decodeCount: number): boolean =>
  aliasCount > 100 && decodeCount > 1000 && aliasCount / decodeCount > allowedAliasRatio(decodeCount);

/** Node counts stop growing here: enough to fail any check, and exact as a double. */
const COUNT_CAP = 2 ** 50;

/**
 * go-yaml v2's alias check, without expanding anything: its decoder counts every node it
 * decodes (the document, each mapping, key, value, sequence and item, an alias and then
 * everything the alias stands for again), and fails with `document contains excessive
 * aliasing` when more than 100 of them came from aliases, more than 1000 in all, and the
 * aliased share passes allowedAliasRatio. The nodes of the first document are visited in the
 * decoder's order (the events' order); an alias adds its target's expanded size at once,
 * which fails exactly when some step inside it would, since within an expansion the aliased
 * share only rises and the allowed share only falls.
 */
function checkAliasing(events: readonly Event[], text: string): void {
  /**
   * Expanded size of each node with an anchor, by anchor name (later ones shadow earlier, from
   * where they start); OPEN while the node is still being read.
   */
  const anchors = new Map<string, number>();
  const OPEN = -1;
  /** Open collections: their expanded size so far and their anchor. */
  const open: Array<{ size: number; anchor: string | undefined }> = [];
  let decodeCount = 0;
  let aliasCount = 0;
  const fail = (): never => {
    throw new YamlLimitError("yaml: document contains excessive aliasing");
  };
  const finished = (size: number, anchor: string | undefined): void => {
    if (anchor !== undefined) anchors.set(anchor, size);
    const parent = open[open.length - 1];
    if (parent) parent.size = Math.min(COUNT_CAP, parent.size + size);
  };
  const anchorOf = (e: { anchorStart: number; anchorEnd: number }): string | undefined =>
    e.anchorStart < 0 ? undefined : text.slice(e.anchorStart, e.anchorEnd);
  let documents = 0;
  for (const e of events) {
    switch (e.type) {
      case EVENT_ID.DOCUMENT:
        // Only the first document is decoded (yaml.Unmarshal).
        if (++documents > 1) return;
        decodeCount += 1;
        break;
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE:
        decodeCount += 1;
        if (excessive(aliasCount, decodeCount)) fail();
        open.push({ size: 1, anchor: anchorOf(e) });
        if (anchorOf(e) !== undefined) anchors.set(anchorOf(e) as string, OPEN);
        break;
      case EVENT_ID.SCALAR:
        decodeCount += 1;
        if (excessive(aliasCount, decodeCount)) fail();
        finished(1, anchorOf(e));
        break;
      case EVENT_ID.ALIAS: {
        decodeCount += 1;
        if (excessive(aliasCount, decodeCount)) fail();
        const name = text.slice(e.anchorStart, e.anchorEnd);
        const target = anchors.get(name) ?? 0;
        // A value holding an alias of itself would expand forever (and cannot be JSON).
        if (target === OPEN) throw new YamlLimitError(`yaml: anchor '${name}' value contains itself`);
        decodeCount = Math.min(COUNT_CAP, decodeCount + target);
        aliasCount = Math.min(COUNT_CAP, aliasCount + target);
        if (excessive(aliasCount, decodeCount)) fail();
        finished(1 + target, undefined);
        break;
      }
      case EVENT_ID.POP: {
        const done = open.pop();
        if (done) finished(done.size, done.anchor);
        break;
      }
    }
  }
}

/**
 * go-yaml v2's nesting limit, for a document too deeply nested for js-yaml's recursive parser
 * to read at all: more than 10000 open flow collections, or block collections each indented
 * further than the one holding it, fail with `yaml: exceeded max depth of 10000` (with
 * `line N: ` when the opening is past the first line). A scan of the text, not a parse:
 * quoted scalars and comments are skipped; block scalars are not recognized.
 */
function deepestOpening(text: string): { depth: number; line: number } {
  let flow = 0;
  const indents: number[] = [];
  let line = 0;
  let lineStart = 0;
  let atValueStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\n") {
      line++;
      lineStart = i + 1;
      atValueStart = true;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") continue;
    if (c === "#" && (i === 0 || /\s/.test(text[i - 1] as string))) {
      while (i + 1 < text.length && text[i + 1] !== "\n") i++;
      continue;
    }
    if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (c === '"' && text[i] === "\\") i++;
      atValueStart = false;
      continue;
    }
    const column = i - lineStart;
    if (flow === 0 && atValueStart) {
      // A block collection at a new column pushes an indentation level (roll_indent); a
      // line starting further left pops the deeper ones (unroll_indent).
      if (i === lineStart || text.slice(lineStart, i).trim() === "") while (indents.length && (indents[indents.length - 1] as number) > column) indents.pop();
      const top = indents.length ? (indents[indents.length - 1] as number) : -1;
      const entry = c === "-" && /\s/.test(text[i + 1] ?? " ");
      const key = !entry && c !== "[" && c !== "{" && /^[^\s:#]*:(\s|$)/.test(text.slice(i, i + 256));
      if ((entry || key) && column > top) {
        indents.push(column);
        if (indents.length > MAX_YAML_DEPTH) return { depth: indents.length, line };
      }
      if (entry) continue;
    }
    if (c === "[" || c === "{") {
      if (flow > 0 || atValueStart) {
        flow++;
        if (flow > MAX_YAML_DEPTH) return { depth: flow, line };
      }
      atValueStart = true;
      continue;
    }
    if (c === "]" || c === "}") {
      if (flow > 0) flow--;
      atValueStart = false;
      continue;
    }
    if (c === ",") {
      atValueStart = flow > 0;
      continue;
    }
    if (c === ":" && /\s/.test(text[i + 1] ?? " ")) {
      atValueStart = true;
      continue;
    }
    atValueStart = false;
  }
  return { depth: 0, line: 0 };
}

function depthError(line: number): YamlLimitError {
  // go-yaml prints a scanner error's line (1-based) only when it is not the first.
  return new YamlLimitError(`yaml: ${line > 0 ? `line ${line + 1}: ` : ""}exceeded max depth of ${MAX_YAML_DEPTH}`);
}

/** Reads the documents under the server's limits; see FromYamlOptions.serverLimits. */
function loadWithServerLimits(text: string, json: boolean): unknown[] {
  let events: Event[];
  try {
    // js-yaml's own limit out of the way: go-yaml's is checked below, and js-yaml's parser
    // recurses, running out of stack far earlier than 10000 levels.
    events = parseEvents(text, { maxDepth: MAX_YAML_DEPTH * 2 });
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const deepest = deepestOpening(text);
    if (deepest.depth > MAX_YAML_DEPTH) throw depthError(deepest.line);
    throw new YamlTooDeepError();
  }
  checkAliasing(events, text);
  try {
    return constructFromEvents(events, { source: text, json });
  } catch (e) {
    if (e instanceof RangeError) throw new YamlTooDeepError();
    throw e;
  }
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a sequence";
  return `a ${typeof v}`;
}

/** Parses one YAML document whose root is a mapping; see the module comment. */
export function fromYaml(text: string, options: FromYamlOptions = {}): Record<string, unknown> {
  let docs: unknown[];
  try {
    docs = options.serverLimits
      ? loadWithServerLimits(text, options.allowDuplicateKeys ?? false)
      : loadAll(text, { json: options.allowDuplicateKeys ?? false });
  } catch (e) {
    if (e instanceof YamlDecodeError) throw e;
    if (e instanceof YAMLException) {
      const line = e.mark ? e.mark.line + 1 : undefined;
      const column = e.mark ? e.mark.column + 1 : undefined;
      const at = line !== undefined ? ` at line ${line}, column ${column}` : "";
      throw new YamlDecodeError(`invalid YAML${at}: ${e.reason}`, line, column);
    }
    throw e;
  }
  if (docs.length !== 1) {
    throw new YamlDecodeError(
      docs.length === 0 ? "YAML input holds no document; expected one mapping" : `YAML input holds ${docs.length} documents; a body must hold exactly one`,
    );
  }
  const root = docs[0];
  if (typeof root !== "object" || root === null || Array.isArray(root)) {
    throw new YamlDecodeError(`the YAML document's root is ${kindOf(root)}; an object body must be a mapping`);
  }
  return root as Record<string, unknown>;
}
