/**
 * Reading a server-side apply body (apiserver@v0.35.7 patch.go applyPatcher and the
 * fieldmanager's first checks):
 *
 *  - application/apply-patch+yaml is YAML (JSON is YAML); application/apply-patch+cbor is
 *    CBOR (CBORServingAndStorage gate only). A body that does not read, or whose root is not
 *    a mapping, is 400 `error decoding patch: …`; an empty or null document is an empty
 *    configuration (it then fails the type check below);
 *  - the configuration's apiVersion and kind must be the endpoint's: else 400
 *    `invalid object type: <group>/<version>, Kind=<kind>` (versionCheckManager);
 *  - metadata.managedFields must be absent: else 400 `metadata.managedFields must be nil`;
 *  - the configuration must fit the type's schema: else 400 `failed to create typed patch
 *    object (<ns>/<name>; <gvk>): …`, unknown fields as `.spec: field not declared in schema`
 *    (the real server answers these two with a reasonless 500; 400 here, see errors.ts). Type
 *    mismatches carry the emulator's decode text rather than structured-merge-diff's;
 *  - duplicate YAML keys are tolerated by the decode, then (fieldValidation Warn/Strict)
 *    reported by a strict one: a Warning, or under Strict 400 `error strict decoding patch: …`.
 */

import { CborDecodeError, decodeCbor } from "../../../wire/cbor.js";
import { fromYaml, YamlDecodeError, YamlLimitError, YamlTooDeepError } from "../../../wire/yaml.js";
import { badRequest } from "../../apimachinery/api-errors.js";
import { goQuote } from "../../apimachinery/field-errors.js";
import { emulatorDepthMessage, isJsonObject, type Json, type JsonObject, valueBeyondEmulator } from "../../apimachinery/json.js";
import { fieldElement, pathString } from "../../apimachinery/managed-fields/field-set.js";
import type { SchemaNode } from "../../apimachinery/managed-fields/schema.js";
import { itemElement } from "../../apimachinery/managed-fields/typed-values.js";
import { DecodeError, decodeObject, jsonTypeName } from "../../apimachinery/typed-json.js";
import { groupVersionOf, type ResourceStrategy } from "../../registry/generic/strategy.js";
import type { PatchType } from "./media-types.js";
import type { FieldValidation } from "./options.js";

export interface ApplyBody {
  readonly config: JsonObject;
  /** The strict decode's complaint (duplicate keys), when there is one. */
  readonly strictError?: string;
}

const MAP_TYPE = "map[string]interface {}";

function notAMapping(kind: string): Error {
  return badRequest(`error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${kind} into Go value of type ${MAP_TYPE}`);
}

const ROOT_KINDS: Record<string, string> = { "a sequence": "array", "a string": "string", "a number": "number", "a boolean": "bool" };

/** A decoded CBOR value in the JSON form (integers beyond 2^53 come as bigints). */
function jsonForm(value: unknown): Json {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))) as Json;
}

/** yaml.v2's text for a repeated key, from the position js-yaml reports. */
function duplicateKeyText(text: string, line: number | undefined, column: number | undefined): string {
  const row = line === undefined ? "" : (text.split("\n")[line - 1] ?? "");
  const rest = row.slice((column ?? 1) - 1);
  const m = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^:,{}]+?)\s*:/.exec(rest);
  let key = m?.[1] ?? "";
  if (key.startsWith('"')) key = JSON.parse(key) as string;
  else if (key.startsWith("'")) key = key.slice(1, -1);
  return `error converting YAML to JSON: yaml: unmarshal errors:\n  line ${line ?? 0}: key ${goQuote(key)} already set in map`;
}

function readYaml(text: string, validation: FieldValidation): ApplyBody {
  let config: Json;
  try {
    config = fromYaml(text, { allowDuplicateKeys: true, serverLimits: true }) as JsonObject;
  } catch (e) {
    if (!(e instanceof YamlDecodeError)) throw e;
    // yaml.Unmarshal (sigs.k8s.io/yaml v1.6.0) prefixes go-yaml's own error once.
    if (e instanceof YamlLimitError) throw badRequest(`error decoding patch: error converting YAML to JSON: ${e.message}`);
    if (e instanceof YamlTooDeepError) throw badRequest(`error decoding patch: ${emulatorDepthMessage()}`);
    if (/holds no document|root is null/.test(e.message)) return { config: {} };
    const root = /root is (a \w+)/.exec(e.message)?.[1];
    if (root !== undefined) throw notAMapping(ROOT_KINDS[root] ?? "object");
    throw badRequest(`error decoding patch: error converting YAML to JSON: ${e.message}`);
  }
  if (validation === "Ignore") return { config: config as JsonObject };
  try {
    fromYaml(text, { allowDuplicateKeys: false, serverLimits: true });
    return { config: config as JsonObject };
  } catch (e) {
    if (e instanceof YamlDecodeError && /duplicated mapping key/.test(e.message)) {
      return { config: config as JsonObject, strictError: duplicateKeyText(text, e.line, e.column) };
    }
    return { config: config as JsonObject };
  }
}

function readCbor(body: Buffer): ApplyBody {
  let value: Json;
  try {
    value = jsonForm(decodeCbor(body));
  } catch (e) {
    if (e instanceof CborDecodeError) throw badRequest(`error decoding patch: ${e.message}`);
    throw e;
  }
  if (value === null) return { config: {} };
  if (!isJsonObject(value)) throw badRequest(`error decoding patch: cbor: cannot unmarshal ${jsonTypeName(value)} into Go value of type ${MAP_TYPE}`);
  return { config: value };
}

export function readApplyBody(patchType: PatchType, body: Buffer, validation: FieldValidation): ApplyBody {
  const read = patchType === "apply-cbor" ? readCbor(body) : readYaml(body.toString("utf8"), validation);
  if (valueBeyondEmulator(read.config)) throw badRequest(`error decoding patch: ${emulatorDepthMessage()}`);
  return read;
}

/** `<group>/<version>, Kind=<kind>` (schema.GroupVersionKind.String), from an apiVersion string. */
export function gvkString(apiVersion: string, kind: string): string {
  const parts = apiVersion.split("/");
  let group = "";
  let version = "";
  if (parts.length === 1) version = parts[0] ?? "";
  else if (parts.length === 2) [group, version] = [parts[0] ?? "", parts[1] ?? ""];
  return `${group}/${version}, Kind=${kind}`;
}

const str = (o: JsonObject | undefined, key: string): string => (typeof o?.[key] === "string" ? (o[key] as string) : "");

/** Keyed and set lists: every item addressable, none twice (structured-merge-diff's typed checks). */
function listErrors(value: Json, node: SchemaNode, path: string[], out: string[]): void {
  if (node.type === "list" && Array.isArray(value)) {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (node.listType === "map") {
        // A key field with a schema default takes it, as structured-merge-diff reads the item.
        if (isJsonObject(item)) for (const [k, v] of Object.entries(node.keyDefaults ?? {})) if (!(k in item)) item[k] = v;
        const missing = node.keys.find((k) => !isJsonObject(item) || !(k in item));
        if (missing !== undefined) {
          out.push(
            `${pathString(path)}: element ${i}: associative list with keys has an element that omits key field ${goQuote(missing)} (and doesn't have default value)`,
          );
          return;
        }
      }
      const e = itemElement(node, item);
      if (e === undefined) return;
      if (node.listType !== "atomic" && seen.has(e)) out.push(`${pathString(path)}: duplicate entries for key ${pathString([e])}`);
      seen.add(e);
      if (node.listType === "map") listErrors(item, node.items, [...path, e], out);
    });
    return;
  }
  if ((node.type === "struct" || node.type === "map") && isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const child = node.type === "struct" ? node.fields.get(k) : node.values;
      if (child) listErrors(v, child, [...path, fieldElement(k)], out);
    }
  }
}

/** The configuration checks that precede the merge (type, managedFields, schema). */
export function checkApplyConfig(strategy: ResourceStrategy, schema: SchemaNode, config: JsonObject): void {
  const apiVersion = str(config, "apiVersion");
  const kind = str(config, "kind");
  if (apiVersion !== groupVersionOf(strategy) || kind !== strategy.kind) throw badRequest(`invalid object type: ${gvkString(apiVersion, kind)}`);
  const metadata = isJsonObject(config["metadata"]) ? config["metadata"] : undefined;
  const managedFields = metadata?.["managedFields"];
  if (managedFields !== undefined && managedFields !== null) throw badRequest("metadata.managedFields must be nil");

  const where = `${str(metadata, "namespace")}/${str(metadata, "name")}; ${gvkString(apiVersion, kind)}`;
  const fail = (errors: string[]): never => {
    const detail = errors.length === 1 ? (errors[0] ?? "") : `errors:\n  ${errors.join("\n  ")}`;
    throw badRequest(`failed to create typed patch object (${where}): ${detail}`);
  };
  let unknown: string[];
  try {
    unknown = decodeObject(config, strategy.shape).unknownFields;
  } catch (e) {
    if (e instanceof DecodeError) return fail([e.message]);
    throw e;
  }
  if (unknown.length) fail(unknown.map((f) => `.${f}: field not declared in schema`));
  const errors: string[] = [];
  listErrors(config, schema, [], errors);
  if (errors.length) fail(errors);
}
