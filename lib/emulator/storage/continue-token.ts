/**
 * List continue tokens (wire-facts §9): base64url without padding of the compact JSON
 * {"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<last key relative to the list prefix>\u0000"}.
 * rv -1 means "continue from start at the latest revision" (handed out with a 410).
 *
 * The emulator's own tokens carry two more keys after those three: "issued" (the emulator
 * clock at issue, ms) and "sig" (a MAC over rv, start and issued). A real server's token
 * lifetime is a side effect of etcd compacting every 5 minutes; the emulator compacts by
 * retention instead, so it needs the issue time to give doc1's 5-minute token lifetime, and
 * the MAC so that an edited time is a 400 rather than a way around the expiry or a crash.
 * Go's decoder ignores unknown keys, so these tokens still have the real shape, and tokens
 * without the two keys (the real format, or hand-made) are accepted and simply do not age.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { posix } from "node:path";
import { goJsonSyntaxError } from "../apimachinery/go-json-errors.js";
import { InvalidContinue } from "./read-errors.js";

const VERSION = "meta.k8s.io/v1";

export interface ContinuePosition {
  /** The list revision the first page was read at; -1 for "latest". */
  readonly rv: number;
  /** Absolute store key to resume at (inclusive). */
  readonly startKey: string;
  /** Emulator clock (ms) when the token was issued; absent for tokens in the plain format. */
  readonly issuedAt?: number;
}

const MAC_BYTES = 16;

/** Signs and checks the issue stamp; one key per emulator, so only its own stamps verify. */
export class ContinueTokenSigner {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  sign(rv: number, start: string, issuedAt: number): string {
    return this.mac(rv, start, issuedAt).toString("base64url");
  }

  verify(rv: number, start: string, issuedAt: number, sig: string): boolean {
    const given = Buffer.from(sig, "base64url");
    const expected = this.mac(rv, start, issuedAt);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(rv: number, start: string, issuedAt: number): Buffer {
    // A JSON array keeps the three values apart whatever characters start holds.
    return createHmac("sha256", this.key)
      .update(JSON.stringify([rv, start, issuedAt]))
      .digest()
      .subarray(0, MAC_BYTES);
  }
}

export interface ContinueStamp {
  readonly issuedAt: number;
  readonly signer: ContinueTokenSigner;
}

/**
 * Token that resumes right after lastKey (which lies under keyPrefix, a path ending in "/").
 * Without a stamp it is exactly the real server's format.
 */
export function encodeContinue(lastKey: string, keyPrefix: string, rv: number, stamp?: ContinueStamp): string {
  return encodeContinueFrom(`${lastKey}\u0000`, keyPrefix, rv, stamp);
}

/** Token that resumes at startKey itself (a decoded position, as the 410's fresh token does). */
export function encodeContinueFrom(startKey: string, keyPrefix: string, rv: number, stamp?: ContinueStamp): string {
  const start = startKey.slice(keyPrefix.length);
  const stamped = stamp ? `,"issued":${stamp.issuedAt},"sig":${JSON.stringify(stamp.signer.sign(rv, start, stamp.issuedAt))}` : "";
  const json = `{"v":${JSON.stringify(VERSION)},"rv":${rv},"start":${JSON.stringify(start)}${stamped}}`;
  return Buffer.from(json, "utf8").toString("base64url");
}

const INVALID = "continue key is not valid";

/** Decodes and checks a token (InvalidContinue when it fails); a stamped one needs the signer of the emulator that issued it. */
export function decodeContinue(token: string, keyPrefix: string, signer?: ContinueTokenSigner): ContinuePosition {
  const badChar = /[^A-Za-z0-9_-]/.exec(token);
  if (badChar || token.length % 4 === 1) {
    throw new InvalidContinue(`${INVALID}: illegal base64 data at input byte ${badChar ? badChar.index : token.length - 1}`);
  }
  const text = Buffer.from(token, "base64url").toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new InvalidContinue(`${INVALID}: ${goJsonSyntaxError(text, e)}`);
  }
  const { v, rv, start, issued, sig } = tokenFields(parsed);
  if (v !== VERSION) {
    // ErrUnrecognizedEncodedVersion wrapped with "%w %v": a space, then the version as it is.
    throw new InvalidContinue(`${INVALID}: server does not recognize this encoded version ${v}`);
  }
  if (rv === 0) {
    throw new InvalidContinue(`${INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  }
  if (start.length === 0) {
    throw new InvalidContinue(`${INVALID}: encoded start key empty (version meta.k8s.io/v1)`);
  }
  // Path cleaning stops a token from reaching above the list's prefix.
  const key = start.startsWith("/") ? start : `/${start}`;
  if (posix.normalize(key) !== key || (key.length > 1 && key.endsWith("/"))) {
    throw new InvalidContinue(`${INVALID}: ${start}`);
  }
  const startKey = keyPrefix + key.slice(1);
  if (issued === undefined && sig === undefined) return { rv, startKey };
  if (typeof issued !== "number" || !Number.isSafeInteger(issued) || issued < 0) {
    throw new InvalidContinue(`${INVALID}: incorrect encoded issue time`);
  }
  if (typeof sig !== "string" || signer === undefined || !signer.verify(rv, start, issued, sig)) {
    throw new InvalidContinue(`${INVALID}: the token was not issued by this server or has been altered`);
  }
  return { rv, startKey, issuedAt: issued };
}

/** encoding/json's name of a JSON value's type in an UnmarshalTypeError. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "object" ? "object" : typeof value === "boolean" ? "bool" : typeof value;
}

const INT64_MAX = 2 ** 63;

/**
 * The token's fields as json.Unmarshal fills Go's continueToken{v string, rv int64, start string}:
 * keys matched case-insensitively, null leaves a field at its zero value, and a value of another
 * type is encoding/json's "cannot unmarshal" error (the first one met). The emulator's own two
 * keys ride along. Not an object at all is the error for the whole value.
 */
function tokenFields(parsed: unknown): { v: string; rv: number; start: string; issued?: unknown; sig?: unknown } {
  const out: { v: string; rv: number; start: string; issued?: unknown; sig?: unknown } = { v: "", rv: 0, start: "" };
  if (parsed === null) return out;
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InvalidContinue(`${INVALID}: json: cannot unmarshal ${jsonType(parsed)} into Go value of type storage.continueToken`);
  }
  let typeError: string | undefined;
  const wrong = (field: string, goType: string, what: string): void => {
    typeError ??= `json: cannot unmarshal ${what} into Go struct field continueToken.${field} of type ${goType}`;
  };
  for (const [key, value] of Object.entries(parsed)) {
    const field = key.toLowerCase();
    if (field === "issued" || field === "sig") {
      if (key === field) out[field] = value;
      continue;
    }
    if (field !== "v" && field !== "rv" && field !== "start") continue;
    if (value === null) continue;
    if (field === "rv") {
      if (typeof value !== "number") wrong(field, "int64", jsonType(value));
      else if (!Number.isInteger(value) || Math.abs(value) >= INT64_MAX) wrong(field, "int64", `number ${value}`);
      else out.rv = value;
    } else if (typeof value !== "string") wrong(field, "string", jsonType(value));
    else out[field] = value;
  }
  if (typeError !== undefined) throw new InvalidContinue(`${INVALID}: ${typeError}`);
  return out;
}
