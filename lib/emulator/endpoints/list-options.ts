/**
 * Query parameters of list, watch and deletecollection: selectors, paging, resourceVersion,
 * watch switches. Malformed values are 400 BadRequest, as the server's parameter decoding
 * reports them.
 */

import { badRequest, invalidError } from "../apimachinery/api-errors.js";
import { type FieldError, forbidden, notSupported } from "../apimachinery/field-errors.js";
import { type FieldSelector, parseFieldSelector } from "../apimachinery/field-selector.js";
import type { KubeObject } from "../apimachinery/json.js";
import { SelectorError } from "../apimachinery/label-selector.js";
import { type DecodedListQuery, decodeListQuery, QueryError } from "../apimachinery/list-query.js";
import { labelsOf } from "../apimachinery/object-meta.js";
import type { ResourceStrategy } from "../registry/generic/strategy.js";
import { parseResourceVersion } from "../storage/reads.js";
import { type ReadKind, type ReadPath, readError } from "./handlers/storage-errors.js";

/** The decoded query, with the field selector checked against the type's selectable fields. */
export interface ListOptions extends Omit<DecodedListQuery, "fieldRequirements"> {
  readonly fieldSelector: FieldSelector;
}

export interface ObjectFilter {
  readonly empty: boolean;
  matches(obj: KubeObject): boolean;
}

export function parseListOptions(params: URLSearchParams, strategy: ResourceStrategy, extraFieldSelector?: string): ListOptions {
  try {
    const { fieldRequirements: _, ...decoded } = decodeListQuery(params);
    const fields = [params.get("fieldSelector") ?? "", extraFieldSelector ?? ""].filter((s) => s !== "").join(",");
    return { ...decoded, fieldSelector: parseFieldSelector(fields, strategy.fieldLabels) };
  } catch (e) {
    if (e instanceof SelectorError || e instanceof QueryError) throw badRequest(e.message);
    throw e;
  }
}

/** The label and field selectors together, applied to decoded objects. */
export function objectFilter(options: ListOptions, strategy: ResourceStrategy): ObjectFilter {
  const empty = options.labelSelector.empty && options.fieldSelector.empty;
  return {
    empty,
    matches: (obj) => empty || (options.labelSelector.matches(labelsOf(obj)) && options.fieldSelector.matches(strategy.selectableFields(obj))),
  };
}

/**
 * The resourceVersion of a get or watch as storage parses it (storage/reads.ts): undefined for
 * "" and "0", a bigint beyond 2^53; a bad one is answered as the server answers it for that read
 * (storage-errors.ts). A list's is parsed by storage's list read itself.
 */
export function parseResourceVersionParam(rv: string, path: ReadPath, kind: ReadKind): number | bigint | undefined {
  try {
    return parseResourceVersion(rv);
  } catch (e) {
    throw readError(e, path, kind) ?? e;
  }
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
