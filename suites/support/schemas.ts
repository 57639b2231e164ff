/**
 * JSON Schemas for Event and EventList written from doc2 (fixtures/schemas), compiled once with
 * ajv. `eventSchemaErrors` / `eventListSchemaErrors` return readable violations, empty when the
 * document conforms. Unit-tested in test/suites-support/event-schema.test.ts.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

const DIR = resolve(import.meta.dirname, "../../fixtures/schemas");
const load = (file: string): Record<string, unknown> => JSON.parse(readFileSync(resolve(DIR, file), "utf8")) as Record<string, unknown>;

let compiled: { event: ValidateFunction; list: ValidateFunction } | undefined;

function validators(): { event: ValidateFunction; list: ValidateFunction } {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true });
    ajv.addSchema(load("event.schema.json"));
    ajv.addSchema(load("event-list.schema.json"));
    const event = ajv.getSchema("https://tollgate.dev/schemas/event.schema.json");
    const list = ajv.getSchema("https://tollgate.dev/schemas/event-list.schema.json");
    if (!event || !list) throw new Error("the Event schemas did not compile");
    compiled = { event, list };
  }
  return compiled;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}${e.keyword === "additionalProperties" ? ` (${String(e.params["additionalProperty"])})` : ""}`,
  );
}

/** Violations of the Event schema by `doc`; empty when it conforms. */
export function eventSchemaErrors(doc: unknown): string[] {
  const v = validators().event;
  return v(doc) ? [] : describeErrors(v.errors);
}

/** Violations of the EventList schema by `doc` (its items checked as Events); empty when it conforms. */
export function eventListSchemaErrors(doc: unknown): string[] {
  const v = validators().list;
  return v(doc) ? [] : describeErrors(v.errors);
}
