/**
 * Media types, Accept lists and content negotiation, shared by the client and the server side
 * (doc1 "Media types and negotiation" and "Headers"; wire-facts §2, §3, §6).
 *
 * Written by hand rather than with a registry library: the RFC 9110 grammar of a media type is
 * a few lines, and what matters here is specific to this API. The Table, PartialObjectMetadata
 * and aggregated-discovery forms are plain `application/json` with `as`, `g` and `v`
 * parameters, and an offer must be chosen only when the client named that exact
 * `as;g;v` triple (case-sensitive, `as=Table`). The jshttp libraries do not fit: `negotiator`
 * lets a range without parameters match an offer that has them (a plain `application/json`
 * would select the Table form), compares parameter values case-insensitively, and returns
 * strings; `content-type` parses one Content-Type and throws, with no Accept list or q values.
 */

/** A parsed media type. `type`/`subtype` are lowercase; parameter names are lowercase and
 * values are unquoted with their case kept (the `as=Table` value is compared exactly). */
export interface MediaType {
  type: string;
  subtype: string;
  params: Record<string, string>;
}

/** One media range of an Accept header: the range plus its weight. `q` is taken out of
 * `params`; every other parameter stays there. */
export interface AcceptEntry extends MediaType {
  q: number;
}

/** What a server can produce (or a client can read). Extra fields are carried through
 * `negotiate`, so callers can attach their serializer to an offer. */
export type Offer = MediaType;

// RFC 9110 §5.6.2 tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const OWS = /[ \t]/;
// RFC 9110 §12.4.2: "0" or "1" followed by at most three decimals (1 only with zeros).
const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

class Scanner {
  pos = 0;
  constructor(readonly s: string) {}
  get done(): boolean {
    return this.pos >= this.s.length;
  }
  peek(): string {
    return this.s[this.pos] ?? "";
  }
  skipOws(): void {
    while (!this.done && OWS.test(this.peek())) this.pos++;
  }
  token(): string {
    const start = this.pos;
    while (!this.done && TOKEN.test(this.peek())) this.pos++;
    return this.s.slice(start, this.pos);
  }
  /** RFC 9110 quoted-string; undefined when unterminated or holding a control character. */
  quoted(): string | undefined {
    this.pos++; // opening quote
    let out = "";
    while (!this.done) {
      const c = this.peek();
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === "\\") {
        this.pos++;
        if (this.done) return undefined;
        out += this.peek();
        this.pos++;
        continue;
      }
      if (c < " " && c !== "\t") return undefined;
      out += c;
      this.pos++;
    }
    return undefined;
  }
}

/**
 * Parses `type/subtype *(;name=value)` from the scanner, stopping before a `,` (so an Accept
 * list can reuse it). Undefined on a grammar error or a repeated parameter name.
 */
function scanMediaType(sc: Scanner): MediaType | undefined {
  sc.skipOws();
  const type = sc.token().toLowerCase();
  if (!type || sc.peek() !== "/") return undefined;
  sc.pos++;
  const subtype = sc.token().toLowerCase();
  if (!subtype) return undefined;
  // "*/json" is not a media range (RFC 9110 §12.5.1).
  if (type === "*" && subtype !== "*") return undefined;
  const params: Record<string, string> = {};
  for (;;) {
    sc.skipOws();
    if (sc.done || sc.peek() === ",") break;
    if (sc.peek() !== ";") return undefined;
    sc.pos++;
    sc.skipOws();
    // An empty parameter (`a/b;` or `a/b;;c=d`) is allowed by the grammar.
    if (sc.done || sc.peek() === ";" || sc.peek() === ",") continue;
    const name = sc.token().toLowerCase();
    if (!name || sc.peek() !== "=") return undefined;
    sc.pos++;
    // A token value must not be empty; a quoted one may be ("").
    const value = sc.peek() === '"' ? sc.quoted() : sc.token() || undefined;
    if (value === undefined) return undefined;
    if (Object.hasOwn(params, name)) return undefined;
    // defineProperty: a parameter named "__proto__" must be data, not the prototype.
    Object.defineProperty(params, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return { type, subtype, params };
}

/** Parses one media type (a Content-Type value or one Accept range). Undefined when invalid. */
export function parseMediaType(s: string): MediaType | undefined {
  const sc = new Scanner(s);
  const m = scanMediaType(sc);
  sc.skipOws();
  return m && sc.done ? m : undefined;
}

/** Writes `type/subtype;name=value` with no spaces, as the server writes Content-Type
 * (for example `application/json;as=Table;g=meta.k8s.io;v=v1`). Values that are not tokens
 * are quoted. */
export function formatMediaType(m: MediaType): string {
  let out = `${m.type}/${m.subtype}`;
  for (const [name, value] of Object.entries(m.params)) {
    const v = TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, "\\$&")}"`;
    out += `;${name}=${v}`;
  }
  return out;
}

const ANY: AcceptEntry = { type: "*", subtype: "*", params: {}, q: 1 };

/**
 * Parses an Accept header into its ranges, in header order. A missing or blank header means
 * "anything" (`*\/*`). A range that does not parse, or whose q is not a valid qvalue, is
 * dropped (the rest of the header still counts). Every parameter other than `q` is kept in
 * `params`, also one written after `q`.
 */
export function parseAccept(header: string | undefined): AcceptEntry[] {
  if (header === undefined || header.trim() === "") return [{ ...ANY, params: {} }];
  const out: AcceptEntry[] = [];
  const sc = new Scanner(header);
  while (!sc.done) {
    const start = sc.pos;
    // scanMediaType stops only at the end or at a comma when it succeeds.
    const m = scanMediaType(sc);
    if (m) {
      out.push(...toEntry(m));
    } else {
      sc.pos = start;
      skipToComma(sc);
    }
    if (sc.peek() === ",") sc.pos++;
  }
  return out;
}

function toEntry(m: MediaType): AcceptEntry[] {
  const { q: qText, ...params } = m.params;
  if (qText === undefined) return [{ ...m, params, q: 1 }];
  if (!QVALUE.test(qText)) return [];
  return [{ ...m, params, q: Number(qText) }];
}

/** Skips the rest of a broken range, honouring quoted strings so a quoted comma is not a split. */
function skipToComma(sc: Scanner): void {
  while (!sc.done && sc.peek() !== ",") {
    if (sc.peek() === '"') {
      if (sc.quoted() === undefined) sc.pos = sc.s.length;
    } else sc.pos++;
  }
}

/** The parameters that select another representation of the object (doc1 Table and
 * metadata-only forms, aggregated discovery). They must agree exactly on both sides. */
const REPRESENTATION_PARAMS = ["as", "g", "v"] as const;

function sameRepresentation(a: MediaType, b: MediaType): boolean {
  return REPRESENTATION_PARAMS.every((p) => (a.params[p] ?? "") === (b.params[p] ?? ""));
}

/**
 * How specifically `entry` matches `offer`, or -1 when it does not match:
 * 0 for `*\/*`, 1 for `type/*`, 2 for the exact type, 3 for the exact type when the entry
 * also names other parameters and the offer has them all with the same values.
 * Other parameters the offer lacks are ignored (`application/json;charset=utf-8` still gets
 * JSON); an offer's extra parameters (`;stream=watch`) do not stop a match.
 */
function matchSpecificity(entry: MediaType, offer: MediaType): number {
  if (!sameRepresentation(entry, offer)) return -1;
  const others = Object.entries(entry.params).filter(([k]) => !(REPRESENTATION_PARAMS as readonly string[]).includes(k));
  // Parameter names are the client's (`constructor`, `__proto__`): the offer's own ones only.
  const offered = (k: string): string | undefined => (Object.hasOwn(offer.params, k) ? offer.params[k] : undefined);
  for (const [k, v] of others) {
    const ov = offered(k);
    if (ov !== undefined && ov !== v) return -1;
  }
  if (entry.type === "*") return 0;
  if (entry.type !== offer.type) return -1;
  if (entry.subtype === "*") return 1;
  if (entry.subtype !== offer.subtype) return -1;
  return others.length > 0 && others.every(([k]) => offered(k) !== undefined) ? 3 : 2;
}

/**
 * Picks the offer the client prefers. Each offer takes the q of its most specific matching
 * range (RFC 9110 §12.5.1), so `application/json;q=0, *\/*` excludes JSON although `*\/*`
 * would allow it. Offers with q 0 are out. Among the rest: highest q, then the more specific
 * matching range, then the range that comes first in the header, then the offer listed
 * first (the server's own preference). Undefined means 406 Not Acceptable.
 */
export function negotiate<O extends Offer>(accept: readonly AcceptEntry[], offers: readonly O[]): O | undefined {
  let best: { offer: O; q: number; spec: number; index: number } | undefined;
  for (const offer of offers) {
    let match: { q: number; spec: number; index: number } | undefined;
    accept.forEach((entry, index) => {
      const spec = matchSpecificity(entry, offer);
      if (spec < 0) return;
      // Most specific range wins; on a tie the higher q (a duplicated range should not
      // shut an offer out), then the earlier one.
      if (!match || spec > match.spec || (spec === match.spec && entry.q > match.q)) match = { q: entry.q, spec, index };
    });
    if (!match || match.q <= 0) continue;
    if (!best || match.q > best.q || (match.q === best.q && (match.spec > best.spec || (match.spec === best.spec && match.index < best.index)))) {
      best = { offer, ...match };
    }
  }
  return best?.offer;
}

function asMediaType(m: MediaType | string): MediaType | undefined {
  return typeof m === "string" ? parseMediaType(m) : m;
}

function is(m: MediaType | string, type: string, subtype: string): boolean {
  const mt = asMediaType(m);
  return mt !== undefined && mt.type === type && mt.subtype === subtype;
}

/** `application/json` (with any parameters, e.g. the Table form). Not the `+json` patch types. */
export function isJson(m: MediaType | string): boolean {
  return is(m, "application", "json");
}

/** `application/yaml`, the only YAML type the server registers. */
export function isYaml(m: MediaType | string): boolean {
  return is(m, "application", "yaml");
}

/** `application/vnd.{vendor}.protobuf` (doc1's placeholder; `kubernetes` on a real server). */
export function isProtobuf(m: MediaType | string, vendor = "kubernetes"): boolean {
  return is(m, "application", `vnd.${vendor.toLowerCase()}.protobuf`);
}

/** `application/cbor`: one CBOR item (wire-facts §3). */
export function isCbor(m: MediaType | string): boolean {
  return is(m, "application", "cbor");
}

/** `application/cbor-seq` (RFC 8742): the CBOR watch stream. */
export function isCborSeq(m: MediaType | string): boolean {
  return is(m, "application", "cbor-seq");
}
