/**
 * Query parameters of list, watch and deletecollection: selectors, paging, resourceVersion,
 * watch switches. Malformed values are 400 BadRequest, as the server's parameter decoding
 * reports them.
 */

import { parseGoBool } from "../../wire/go-strconv.js";
import { badRequest, invalidError } from "../apimachinery/api-errors.js";
import { type FieldError, forbidden, goQuote, notSupported } from "../apimachinery/field-errors.js";
import { type FieldSelector, parseFieldSelector } from "../apimachinery/field-selector.js";
import type { KubeObject } from "../apimachinery/json.js";
import { type LabelSelector, parseLabelSelector, SelectorError } from "../apimachinery/label-selector.js";
import { labelsOf } from "../apimachinery/object-meta.js";
import type { ResourceStrategy } from "../registry/generic/strategy.js";

export interface ListOptions {
  readonly labelSelector: LabelSelector;
  readonly fieldSelector: FieldSelector;
  readonly limit: number;
  readonly continueToken: string;
  /** "" when absent. */
  readonly resourceVersion: string;
  readonly resourceVersionMatch: string;
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  /** Tri-state: undefined when the parameter is absent. */
  readonly sendInitialEvents?: boolean;
  /** Seconds, any int64 (0 and negative included, see watchTimeoutMs); undefined when absent. */
  readonly timeoutSeconds?: bigint;
}

export interface ObjectFilter {
  readonly empty: boolean;
  matches(obj: KubeObject): boolean;
}

function boolParam(params: URLSearchParams, name: string): boolean {
  const raw = params.get(name);
  if (raw === null || raw === "") return false;
  const v = parseGoBool(raw);
  if (v === undefined) throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
  return v;
}

function intParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^[+-]?[0-9]+$/.test(raw)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
  return Number(raw);
}

const INT64_MAX = (1n << 63n) - 1n;

/**
 * strconv.ParseInt(s, 10, 64), as the ListOptions conversion reads timeoutSeconds
 * (apimachinery runtime Convert_Slice_string_To_Pointer_int64): an empty value is no absence
 * but a syntax error; a value past int64 is out of range. 400 with Go's error text.
 */
function int64Param(params: URLSearchParams, name: string): bigint | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const fail = (why: string): Error => badRequest(`strconv.ParseInt: parsing ${goQuote(raw)}: ${why}`);
  const negative = raw.startsWith("-");
  const digits = raw.startsWith("-") || raw.startsWith("+") ? raw.slice(1) : raw;
  if (!/^[0-9]+$/.test(digits)) {
    // Go scans left to right: an overflow before the first bad character is a range error.
    const lead = /^[0-9]*/.exec(digits)?.[0] ?? "";
    if (lead.length > 0 && BigInt(lead) > (1n << 64n) - 1n) throw fail("value out of range");
    throw fail("invalid syntax");
  }
  const n = BigInt(digits);
  if (n > (negative ? INT64_MAX + 1n : INT64_MAX)) throw fail("value out of range");
  return negative ? -n : n;
}

export function parseListOptions(params: URLSearchParams, strategy: ResourceStrategy, extraFieldSelector?: string): ListOptions {
  let labelSelector: LabelSelector;
  let fieldSelector: FieldSelector;
  try {
    labelSelector = parseLabelSelector(params.get("labelSelector") ?? "");
    const fields = [params.get("fieldSelector") ?? "", extraFieldSelector ?? ""].filter((s) => s !== "").join(",");
    fieldSelector = parseFieldSelector(fields, strategy.fieldLabels);
  } catch (e) {
    if (e instanceof SelectorError) throw badRequest(e.message);
    throw e;
  }
  const limit = intParam(params, "limit") ?? 0;
  const timeoutSeconds = int64Param(params, "timeoutSeconds");
  return {
    labelSelector,
    fieldSelector,
    limit: Math.max(limit, 0),
    continueToken: params.get("continue") ?? "",
    resourceVersion: params.get("resourceVersion") ?? "",
    resourceVersionMatch: params.get("resourceVersionMatch") ?? "",
    watch: boolParam(params, "watch"),
    allowWatchBookmarks: boolParam(params, "allowWatchBookmarks"),
    sendInitialEvents: params.get("sendInitialEvents") ? boolParam(params, "sendInitialEvents") : undefined,
    timeoutSeconds,
  };
}

/** The label and field selectors together, applied to decoded objects. */
export function objectFilter(options: ListOptions, strategy: ResourceStrategy): ObjectFilter {
  const empty = options.labelSelector.empty && options.fieldSelector.empty;
  return {
    empty,
    matches: (obj) => empty || (options.labelSelector.matches(labelsOf(obj)) && options.fieldSelector.matches(strategy.selectableFields(obj))),
  };
}

/** A resourceVersion parameter as a revision: "" and "0" are undefined; anything else must be decimal. */
export function parseResourceVersionParam(rv: string): number | undefined {
  if (rv === "" || rv === "0") return undefined;
  if (!/^[0-9]+$/.test(rv)) {
    throw badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  }
  return Number(rv);
}

const NOT_OLDER_THAN = "NotOlderThan";

/**
 * The server's ListOptions validation: the resourceVersionMatch and sendInitialEvents
 * combinations doc1 marks Invalid are 422 on ListOptions.meta.k8s.io.
 */
export function validateListOptions(o: ListOptions): void {
  const errs: FieldError[] = [];
  const match = o.resourceVersionMatch;
  const path = "resourceVersionMatch";
  if (o.watch) {
    if (o.sendInitialEvents !== undefined && match !== NOT_OLDER_THAN) {
      errs.push(forbidden(path, `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`));
    }
    if (match) {
      if (o.sendInitialEvents === undefined) errs.push(forbidden(path, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      if (match !== NOT_OLDER_THAN) errs.push(notSupported(path, match, [NOT_OLDER_THAN]));
      if (o.continueToken) errs.push(forbidden(path, "resourceVersionMatch is forbidden when continue is provided"));
    }
  } else {
    if (match) {
      if (!o.resourceVersion) errs.push(forbidden(path, "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      if (o.continueToken) errs.push(forbidden(path, "resourceVersionMatch is forbidden when continue is provided"));
      if (match !== "Exact" && match !== NOT_OLDER_THAN) errs.push(notSupported(path, match, ["Exact", NOT_OLDER_THAN, ""]));
      if (match === "Exact" && o.resourceVersion === "0") {
        errs.push(forbidden(path, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      }
    }
    if (o.sendInitialEvents !== undefined) errs.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  if (errs.length) throw invalidError({ group: "meta.k8s.io", kind: "ListOptions" }, "", errs);
}
