/**
 * Field ownership (metadata.managedFields) for updates and server-side apply, after the
 * apiserver's fieldmanager chain (apiserver@v0.35.7 pkg/endpoints/handlers/fieldmanager and
 * apimachinery pkg/util/managedfields/internal) over structured-merge-diff's merge.Updater.
 *
 * Written by hand: structured-merge-diff is Go only, and no maintained npm library implements
 * Kubernetes field management. It is kept to what the served types need (see typed-values.ts).
 *
 * What is modelled:
 *  - managers are identified by manager name, operation, and (for Update) apiVersion, as
 *    BuildManagerIdentifier does; entries sort Apply before Update, then by time, manager
 *    and apiVersion (sortEncodedManagedFields);
 *  - an update (PUT, merge, JSON or strategic patch) gives its manager the fields it added or
 *    changed, takes them from every other manager, and takes removed fields from everyone;
 *    the entry's time moves only when the manager gained fields (managedFieldsUpdater);
 *  - apply merges the configuration into the live object, owns exactly the fields the
 *    configuration sets, removes fields it owned before and no longer sets unless another
 *    manager owns them (prune), and fails with a 409 listing each field another manager
 *    owns with a different value, unless forced, in which case it takes them;
 *  - the first apply to an object without managedFields first gives its existing fields to
 *    `before-first-apply` (skipNonAppliedManager);
 *  - a request object carrying `managedFields: []` or `[{}]` resets ownership; one carrying
 *    none or an undecodable list keeps the live object's (decodeManagedFields); one carrying
 *    a readable list replaces them (a client may overwrite managedFields);
 *  - an update that finds no managers on an existing object (one with a uid) records none:
 *    ownership is tracked from an object's creation or first apply only, so a reset stays
 *    untracked until the next apply (skipNonAppliedManager; a create always tracks);
 *  - identity and server-owned fields (apiVersion, kind, metadata name, namespace, uid,
 *    resourceVersion, generation, creationTimestamp, selfLink, managedFields) are never
 *    owned (stripMetaManager), nor the type's reset fields (a namespace's status).
 * What is not: the last-applied-configuration annotation handling of kubectl managers
 * (lastAppliedManager/lastAppliedUpdater) and the cap of ten Update managers merged into
 * `ancient-changes`.
 */

import { failure, type StatusCause } from "../../../wire/status.js";
import { StatusError } from "../api-errors.js";
import { goQuote } from "../field-errors.js";
import { isJsonObject, type Json, type JsonObject } from "../json.js";
import { FieldSet, FieldSetDecodeError, fieldElement, type Path, pathString } from "./field-set.js";
import type { SchemaNode } from "./schema.js";
import { compare, deepEqual, fieldSetOf, merge, removePath } from "./typed-values.js";

export type Operation = "Apply" | "Update";

export interface ManagerEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  readonly time?: string;
  readonly set: FieldSet;
  readonly subresource?: string;
}

/** What a field-managed write needs to know besides the objects. */
export interface FieldManagerContext {
  readonly schema: SchemaNode;
  /** The group-version managers record (`v1`, `events.k8s.io/v1`). */
  readonly apiVersion: string;
  /** RFC 3339 time for entries that change. */
  readonly now: string;
  /** Paths of the type's reset fields, never owned (a namespace's `status`). */
  readonly ignored: readonly Path[];
  /** The subresource the write goes through (`status`): recorded in the writer's entry. */
  readonly subresource?: string;
}

/** The `subresource` part of a new entry for this write. */
const subresourceOf = (ctx: FieldManagerContext): { subresource?: string } => (ctx.subresource ? { subresource: ctx.subresource } : {});

const BEFORE_FIRST_APPLY = "before-first-apply";

/** stripMetaManager's set: fields nobody owns. */
const STRIPPED: readonly Path[] = [
  ["f:apiVersion"],
  ["f:kind"],
  ["f:metadata"],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"].map(
    (f): Path => ["f:metadata", fieldElement(f)],
  ),
];

/** Made once: a FieldSet is immutable. */
const STRIPPED_SET = FieldSet.of(STRIPPED);

const strip = (set: FieldSet): FieldSet => set.difference(STRIPPED_SET);

/** BuildManagerIdentifier: the JSON of the entry without time and fields (apiVersion only for Update). */
function managerKey(e: Pick<ManagerEntry, "manager" | "operation" | "apiVersion" | "subresource">): string {
  const id: JsonObject = {};
  if (e.manager) id["manager"] = e.manager;
  id["operation"] = e.operation;
  if (e.operation === "Update" && e.apiVersion) id["apiVersion"] = e.apiVersion;
  if (e.subresource) id["subresource"] = e.subresource;
  return JSON.stringify(id);
}

/** printManager: `"name"`, and ` using <apiVersion>` for Update managers. */
function printManager(e: Pick<ManagerEntry, "manager" | "operation" | "apiVersion" | "subresource">): string {
  let s = goQuote(e.manager);
  if (e.subresource) s += ` with subresource ${goQuote(e.subresource)}`;
  return e.operation === "Update" ? `${s} using ${e.apiVersion}` : s;
}

class ManagedFieldsDecodeError extends Error {}

/** DecodeManagedFields; throws on an entry it cannot read. */
function decodeEntries(value: Json | undefined): ManagerEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ManagedFieldsDecodeError("managedFields is not a list");
  return value.map((raw, i) => {
    if (!isJsonObject(raw)) throw new ManagedFieldsDecodeError(`entry ${i} is not an object`);
    const fieldsType = raw["fieldsType"];
    if (fieldsType !== "FieldsV1") throw new ManagedFieldsDecodeError(`invalid fieldsType in managed fields entry ${i}`);
    const operation = raw["operation"];
    if (operation !== "Apply" && operation !== "Update") throw new ManagedFieldsDecodeError(`invalid operation in entry ${i}`);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(raw["fieldsV1"] ?? {});
    } catch (e) {
      if (e instanceof FieldSetDecodeError) throw new ManagedFieldsDecodeError(e.message);
      throw e;
    }
    const str = (k: string): string => (typeof raw[k] === "string" ? (raw[k] as string) : "");
    const entry: ManagerEntry = { manager: str("manager"), operation, apiVersion: str("apiVersion"), set };
    const time = str("time");
    const subresource = str("subresource");
    return { ...entry, ...(time ? { time } : {}), ...(subresource ? { subresource } : {}) };
  });
}

function decodeOrEmpty(value: Json | undefined): ManagerEntry[] {
  try {
    return decodeEntries(value);
  } catch (e) {
    if (e instanceof ManagedFieldsDecodeError) return [];
    throw e;
  }
}

/** isResetManagedFields: an empty list, or one empty entry. */
function isReset(value: Json | undefined): boolean {
  if (!Array.isArray(value)) return false;
  if (value.length === 0) return true;
  const only = value[0];
  return value.length === 1 && isJsonObject(only) && Object.keys(only).length === 0;
}

/** The managedFields list in its stored form, sorted as upstream sorts it; undefined when empty. */
function encodeEntries(entries: readonly ManagerEntry[]): Json[] | undefined {
  const kept = entries.filter((e) => !e.set.isEmpty());
  if (!kept.length) return undefined;
  const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const sorted = [...kept].sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    if (seconds(p.time) !== seconds(q.time)) return seconds(p.time) - seconds(q.time);
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? "") < (q.subresource ?? "") ? -1 : 1;
  });
  return sorted.map((e) => {
    const out: JsonObject = {};
    if (e.manager) out["manager"] = e.manager;
    out["operation"] = e.operation;
    out["apiVersion"] = e.apiVersion;
    if (e.time) out["time"] = e.time;
    out["fieldsType"] = "FieldsV1";
    out["fieldsV1"] = e.set.toFieldsV1();
    if (e.subresource) out["subresource"] = e.subresource;
    return out;
  });
}

const metadataOf = (o: JsonObject): JsonObject | undefined => (isJsonObject(o["metadata"]) ? o["metadata"] : undefined);

/** A copy without metadata.managedFields (RemoveObjectManagedFields). */
export function withoutManagedFields(o: JsonObject): JsonObject {
  const meta = metadataOf(o);
  if (!meta || !("managedFields" in meta)) return o;
  const { managedFields: _dropped, ...rest } = meta;
  return { ...o, metadata: rest };
}

const withSet = (e: ManagerEntry, set: FieldSet): ManagerEntry => ({ ...e, set });

/**
 * The Update part of merge.Updater (force on): other managers lose the fields this change
 * removed, added or modified. Returns the comparison for the caller.
 */
function takeChangedFields(ctx: FieldManagerContext, entries: readonly ManagerEntry[], live: JsonObject, next: JsonObject) {
  const cmp = compare(live, next, ctx.schema);
  const changed = cmp.added.union(cmp.modified);
  const out = entries.map((e) => withSet(e, e.set.difference(cmp.removed).difference(changed)));
  return { entries: out, changed };
}

function updateEntries(ctx: FieldManagerContext, entries: ManagerEntry[], live: JsonObject, next: JsonObject, manager: string): ManagerEntry[] {
  const { entries: rest, changed } = takeChangedFields(ctx, entries, live, next);
  const gained = strip(changed).withoutPrefixes(ctx.ignored);
  if (gained.isEmpty()) return rest;
  const self: ManagerEntry = { manager, operation: "Update", apiVersion: ctx.apiVersion, set: gained, time: ctx.now, ...subresourceOf(ctx) };
  const key = managerKey(self);
  const previous = rest.find((e) => managerKey(e) === key);
  if (!previous) return [...rest, self];
  return rest.map((e) => (e === previous ? { ...e, set: e.set.union(gained), time: ctx.now } : e));
}

/**
 * Ownership after an update by `manager`: `live` is the stored object (the type's zero object,
 * without a uid, for a create), `next` the object the request makes (its managedFields, if
 * any, as the request carries them). Returns the managedFields to store (undefined for none).
 */
export function managedFieldsAfterUpdate(ctx: FieldManagerContext, live: JsonObject, next: JsonObject, manager: string): Json[] | undefined {
  const requested = metadataOf(next)?.["managedFields"];
  let entries: ManagerEntry[];
  if (isReset(requested)) entries = [];
  else {
    entries = decodeOrEmpty(requested);
    if (!entries.length) entries = decodeOrEmpty(metadataOf(live)?.["managedFields"]);
  }
  if (!entries.length && metadataOf(live)?.["uid"]) return undefined;
  return encodeEntries(updateEntries(ctx, entries, withoutManagedFields(live), withoutManagedFields(next), manager));
}

export interface ApplyConflict {
  readonly entry: ManagerEntry;
  readonly path: Path;
}

/** The 409 of a failed apply (internal/conflict.go NewConflictError). */
function applyConflictError(conflicts: readonly ApplyConflict[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.entry)}`,
    field: pathString(c.path),
  }));
  let message: string;
  const [only] = conflicts;
  if (conflicts.length === 1 && only) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(only.entry)}: ${pathString(only.path)}`;
  } else {
    const byManager = new Map<string, ApplyConflict[]>();
    for (const c of conflicts) byManager.set(managerKey(c.entry), [...(byManager.get(managerKey(c.entry)) ?? []), c]);
    const lines: string[] = [];
    for (const key of [...byManager.keys()].sort()) {
      const group = byManager.get(key) ?? [];
      const first = group[0];
      if (!first) continue;
      lines.push(`conflicts with ${printManager(first.entry)}:`);
      for (const c of group) lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return new StatusError(failure(409, "Conflict", message, { causes }));
}

export interface ApplyResult {
  /** The object after the apply (the live object itself when nothing changed). */
  readonly object: JsonObject;
  readonly managedFields: Json[] | undefined;
  readonly changed: boolean;
}

/**
 * Server-side apply of `config` by `manager` onto `live` (an existing object, managedFields
 * included) or, for a create, onto `empty` (the type's zero object). Throws the 409 on
 * conflicts unless `force`.
 */
export function applyConfiguration(
  ctx: FieldManagerContext,
  live: JsonObject,
  config: JsonObject,
  manager: string,
  force: boolean,
  empty: JsonObject,
  exists: boolean,
): ApplyResult {
  let entries = decodeOrEmpty(metadataOf(live)?.["managedFields"]);
  const liveValue = withoutManagedFields(live);
  if (!entries.length && exists) {
    // skipNonAppliedManager: what is already there belongs to an Update manager first.
    entries = updateEntries(ctx, [], empty, liveValue, BEFORE_FIRST_APPLY);
  }
  const merged = (merge(liveValue, config, ctx.schema) ?? {}) as JsonObject;
  const applier: ManagerEntry = { manager, operation: "Apply", apiVersion: ctx.apiVersion, set: FieldSet.empty(), ...subresourceOf(ctx) };
  const key = managerKey(applier);
  const previous = entries.find((e) => managerKey(e) === key);
  const lastSet = previous?.set ?? FieldSet.empty();
  const appliedSet = fieldSetOf(config, ctx.schema).withoutPrefixes(ctx.ignored);
  const current: ManagerEntry = { ...(previous ?? applier), set: appliedSet };
  entries = [...entries.filter((e) => e !== previous), current];

  // prune: what this manager applied last time and no longer applies goes, unless someone owns it.
  const owned = entries.reduce((acc, e) => acc.union(e.set), FieldSet.empty());
  const pruned = structuredClone(merged);
  const dropped = strip(lastSet).difference(owned).paths();
  for (const path of [...dropped].reverse()) {
    if (owned.hasBelow(path)) continue;
    removePath(pruned, path, ctx.schema);
  }

  const cmp = compare(liveValue, pruned, ctx.schema);
  const changedFields = cmp.added.union(cmp.modified);
  const conflicts: ApplyConflict[] = [];
  for (const e of entries) {
    if (e === current) continue;
    for (const path of e.set.intersection(changedFields).paths()) conflicts.push({ entry: e, path });
  }
  if (conflicts.length && !force) throw applyConflictError(conflicts);
  const changed = !deepEqual(liveValue, pruned);
  entries = entries.map((e) => {
    if (e === current) return { ...e, set: strip(e.set), ...(changed ? { time: ctx.now } : {}) };
    return withSet(e, e.set.difference(changedFields).difference(cmp.removed));
  });
  return { object: changed ? pruned : liveValue, managedFields: encodeEntries(entries), changed };
}
