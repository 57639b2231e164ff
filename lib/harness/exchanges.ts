/**
 * The last exchanges this worker had with the target, so a failed test can say what it sent
 * and what came back (lib/runner/declare.ts clears the log when a test starts and snapshots it
 * into the test's meta when it fails). Recording is cheap on every request: the method, path,
 * status and the head of the body are kept as they are; masking and cutting happen only when a
 * snapshot is taken. No header is kept, so no credential travels with a request line.
 */

export interface Exchange {
  method: string;
  /** The path with its query, as sent. */
  path: string;
  /** The HTTP status of the answer. */
  status: number;
  /** The start of the response body, whitespace collapsed and secrets masked; for a binary or compressed body, its size and type. */
  excerpt?: string;
  /** A watch: the stream's opening is recorded, not its events. */
  watch?: true;
}

/** How many exchanges a failure carries: the last few are what decided it. */
export const EXCHANGES_KEPT = 8;
/** Characters of a response body in an excerpt. */
export const EXCERPT_CHARS = 300;
/** What is kept of a body until a snapshot: enough to mask a secret that starts inside the excerpt. */
const HEAD_CHARS = 2048;

interface Recorded {
  method: string;
  path: string;
  status: number;
  watch: boolean;
  contentType: string;
  encoding: string;
  size: number;
  /** The start of the body as text, undefined when none was read (a watch stream). */
  head?: string;
}

const ring: Recorded[] = [];

export interface ExchangeInput {
  method: string;
  path: string;
  status: number;
  /** Response headers, lowercase names: only content-type and content-encoding are read. */
  headers: Record<string, string | string[] | undefined>;
  /** The body as text and its size in bytes, when it was read. */
  text?: string;
  bytes?: number;
  watch?: boolean;
}

const header = (h: ExchangeInput["headers"], name: string): string => {
  const v = h[name];
  return Array.isArray(v) ? v.join(", ") : (v ?? "");
};

/** Records one exchange of the current worker; the oldest falls out beyond EXCHANGES_KEPT. */
export function recordExchange(e: ExchangeInput): void {
  ring.push({
    method: e.method,
    path: e.path,
    status: e.status,
    watch: e.watch === true,
    contentType: header(e.headers, "content-type"),
    encoding: header(e.headers, "content-encoding"),
    size: e.bytes ?? (e.text === undefined ? 0 : Buffer.byteLength(e.text)),
    ...(e.text === undefined ? {} : { head: e.text.slice(0, HEAD_CHARS) }),
  });
  if (ring.length > EXCHANGES_KEPT) ring.splice(0, ring.length - EXCHANGES_KEPT);
}

/** Forgets every recorded exchange (a test starts: what came before is not its evidence). */
export function clearExchanges(): void {
  ring.length = 0;
}

/** The recorded exchanges, oldest first, as a failure carries them. */
export function snapshotExchanges(): Exchange[] {
  return ring.map(toExchange);
}

function toExchange(r: Recorded): Exchange {
  const out: Exchange = { method: r.method, path: maskQuery(r.path), status: r.status };
  if (r.watch) out.watch = true;
  const excerpt = excerptOf(r);
  if (excerpt !== undefined) out.excerpt = excerpt;
  return out;
}

const TEXTUAL = /json|yaml|text|xml/i;

function excerptOf(r: Recorded): string | undefined {
  if (r.head === undefined || r.size === 0) return undefined;
  if (r.encoding !== "" && r.encoding !== "identity") return `<${r.size} bytes, ${r.encoding}>`;
  if (r.contentType !== "" && !TEXTUAL.test(r.contentType)) return `<${r.size} bytes, ${r.contentType}>`;
  const text = maskSecrets(r.head).replace(/\s+/g, " ").trim();
  return text.length > EXCERPT_CHARS || r.head.length < r.size ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/**
 * JSON fields that hold credentials (a TokenRequest's `status.token`, a TokenReview's
 * `spec.token`, passwords, key data), a bearer or basic credential, and PEM private keys. A
 * value cut off at the end of the kept head is masked too.
 */
const SECRET_FIELD = /("(?:[A-Za-z_-]*token|password|secret|client-key(?:-data)?|private-key|authorization)"\s*:\s*)"(?:[^"\\]|\\.)*"?/gi;
const AUTH_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const PEM_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

export function maskSecrets(text: string): string {
  return text.replace(SECRET_FIELD, '$1"<masked>"').replace(AUTH_VALUE, "$1 <masked>").replace(PEM_KEY, "<masked private key>");
}

/** A query parameter named like a credential (`token=`, `access_token=`) is masked too. */
function maskQuery(path: string): string {
  return path.replace(/([?&][A-Za-z_-]*(?:token|password)=)[^&]*/gi, "$1<masked>");
}

/** One line per exchange for the reports: `GET /api/v1/namespaces?limit=1 → 200: {"kind":…}`. */
export function formatExchange(e: Exchange): string {
  return `${e.method} ${e.path} → ${e.status}${e.watch ? " (watch)" : ""}${e.excerpt ? `: ${e.excerpt}` : ""}`;
}
