/**
 * summary.json's published JSON Schema (schemas/summary.schema.json) and the reading of a
 * summary from disk for `tollgate report compare` and `merge`: a file or a report folder, a
 * schemaVersion this tollgate knows, the shape the schema gives. Every mistake is one line.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { projectPath } from "../project-root.js";
import { SUMMARY_SCHEMA_VERSION, type Summary } from "./summary.js";

const SUMMARY_SCHEMA_PATH = projectPath("schemas", "summary.schema.json");

/** The schemaVersions this tollgate reads. */
const READABLE_SCHEMA_VERSIONS: readonly number[] = [SUMMARY_SCHEMA_VERSION];

type JsonSchema = { [key: string]: unknown };

function summarySchema(): JsonSchema {
  return JSON.parse(readFileSync(SUMMARY_SCHEMA_PATH, "utf8")) as JsonSchema;
}

/**
 * The schema with every object that lists its properties closed to others. The published
 * schema stays open (readers ignore fields they do not know); tollgate's tests use the closed
 * one, so a field the writer adds without describing it fails them.
 */
function closedSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closedSchema);
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as JsonSchema).map(([p, s]) => [p, closedSchema(s)])) : closedSchema(v);
  if ("properties" in out && !("additionalProperties" in out)) out["additionalProperties"] = false;
  return out;
}

const validators = new Map<boolean, ValidateFunction>();

function validator(closed: boolean): ValidateFunction {
  let v = validators.get(closed);
  if (!v) {
    // Formats are annotations here: a reader needs no format plugin to check a summary.
    const ajv = new Ajv2020({ allErrors: true, validateFormats: false });
    const schema = summarySchema();
    v = ajv.compile(closed ? (closedSchema(schema) as JsonSchema) : schema);
    validators.set(closed, v);
  }
  return v;
}

const describe = (e: ErrorObject): string =>
  `${e.instancePath || "(top)"} ${e.message ?? "is invalid"}${e.keyword === "additionalProperties" ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ""}`;

/** What makes `doc` no summary of the current schema version; empty when it is one. `closed`: also refuse undescribed fields. */
export function summaryErrors(doc: unknown, opts: { closed?: boolean } = {}): string[] {
  const v = validator(opts.closed === true);
  return v(doc) ? [] : (v.errors ?? []).map(describe);
}

/** A summary that cannot be read: the message is the one line the CLI prints. */
class SummaryFileError extends Error {}

/** The summary.json of a report folder, or the file itself. */
function summaryPath(input: string): string {
  return existsSync(input) && statSync(input).isDirectory() ? join(input, "summary.json") : input;
}

/** Reads and checks one summary: it exists, is JSON, has a schemaVersion this tollgate reads, and has the schema's shape. */
export function readSummary(input: string): Summary {
  const path = summaryPath(input);
  if (!existsSync(path)) throw new SummaryFileError(existsSync(input) ? `${input} holds no summary.json` : `no such file or folder: ${input}`);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new SummaryFileError(`${path} is not a summary: not JSON (${(e as Error).message.split("\n")[0]})`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new SummaryFileError(`${path} is not a summary: not a JSON object`);
  const version = (doc as { schemaVersion?: unknown }).schemaVersion;
  if (version === undefined)
    throw new SummaryFileError(`${path} is not a summary: it has no schemaVersion (a tollgate summary older than schemaVersion 1, or another file)`);
  if (typeof version !== "number" || !READABLE_SCHEMA_VERSIONS.includes(version)) {
    throw new SummaryFileError(
      `${path} has schemaVersion ${JSON.stringify(version)}, which this tollgate does not read (it reads ${READABLE_SCHEMA_VERSIONS.join(", ")})`,
    );
  }
  const errors = summaryErrors(doc);
  if (errors.length > 0) throw new SummaryFileError(`${path} is not a summary: ${errors[0]}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`);
  return doc as Summary;
}
