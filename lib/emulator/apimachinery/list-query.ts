/**
 * The query of a list or watch as the server's parameter decoding reads it (url.Values to
 * ListOptions), before any type is known: the field selector's labels are not checked yet. The
 * one decoding of the emulator: the list and watch handlers (endpoints/list-options.ts) and the
 * authorizer's verb and name (auth/request-attributes.ts) both read the query through it.
 */
import { goQuote } from "./field-errors.js";
import { type FieldRequirement, parseFieldRequirements } from "./field-selector.js";
import { type LabelSelector, parseLabelSelector, SelectorError } from "./label-selector.js";

export interface DecodedListQuery {
  readonly labelSelector: LabelSelector;
  readonly fieldRequirements: readonly FieldRequirement[];
  readonly limit: number;
  readonly continueToken: string;
  /** "" when absent. */
  readonly resourceVersion: string;
  readonly resourceVersionMatch: string;
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  /** Tri-state: undefined when the parameter is absent. */
  readonly sendInitialEvents?: boolean;
  /** Seconds, any int64 (0 and negative included: the watch reads them as Go does); undefined when absent. */
  readonly timeoutSeconds?: bigint;
}

/** A failure of that decoding: a 400 with this message on the list, no name for the authorizer. */
export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QueryError";
  }
}

/** Go's strings.EqualFold(v, "false"): `ſ` folds to `s`, nothing else outside ASCII to these letters. */
const foldsToFalse = (v: string): boolean => v.replace(/\u017f/g, "s").toLowerCase() === "false";

/** The server's query boolean: only "0" and "false" (any case) are false; anything else, "" too, is true. */
function boolParam(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  return !(raw === "0" || foldsToFalse(raw));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(v, 10, 64), with its error texts ("" is invalid syntax). */
function intParam(params: URLSearchParams, name: string): bigint | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const fail = (why: string): QueryError => new QueryError(`strconv.ParseInt: parsing ${goQuote(raw)}: ${why}`);
  const digits = raw.startsWith("+") || raw.startsWith("-") ? raw.slice(1) : raw;
  if (digits === "") throw fail("invalid syntax");
  let value = 0n;
  for (const c of digits) {
    if (c < "0" || c > "9") throw fail("invalid syntax");
    // Past the uint64 range the digits stop being read (ParseUint's overflow); past int64 the verdict is the same.
    value = value * 10n + BigInt(c.charCodeAt(0) - 48);
    if (value > 2n ** 64n - 1n) throw fail("value out of range");
  }
  if (raw.startsWith("-")) value = -value;
  if (value < INT64_MIN || value > INT64_MAX) throw fail("value out of range");
  return value;
}

/** The server's decoding of a list or watch query; throws QueryError as it refuses one. */
export function decodeListQuery(params: URLSearchParams): DecodedListQuery {
  // In the order of the server's conversions: the numbers first, then the selectors.
  const timeoutSeconds = intParam(params, "timeoutSeconds");
  const limit = Number(intParam(params, "limit") ?? 0n);
  let labelSelector: LabelSelector;
  let fieldRequirements: FieldRequirement[];
  try {
    labelSelector = parseLabelSelector(params.get("labelSelector") ?? "");
    fieldRequirements = parseFieldRequirements(params.get("fieldSelector") ?? "");
  } catch (e) {
    if (e instanceof SelectorError) throw new QueryError(e.message);
    throw e;
  }
  return {
    labelSelector,
    fieldRequirements,
    limit: Math.max(limit, 0),
    continueToken: params.get("continue") ?? "",
    resourceVersion: params.get("resourceVersion") ?? "",
    resourceVersionMatch: params.get("resourceVersionMatch") ?? "",
    watch: boolParam(params, "watch") ?? false,
    allowWatchBookmarks: boolParam(params, "allowWatchBookmarks") ?? false,
    sendInitialEvents: boolParam(params, "sendInitialEvents"),
    timeoutSeconds,
  };
}
