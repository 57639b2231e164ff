/**
 * The served types of one CustomResourceDefinition: a strategy per served version, all
 * reading and writing the same stored objects under `/registry/<group>/<plural>`, kept in
 * the storage version's form. Other versions are storage views that change only apiVersion
 * (conversion strategy None; a Webhook strategy is treated the same, see crd-strategy.ts).
 *
 * Per version: the shape deduced from its schema (pruning, unknown fields), the schema
 * validation (422), the Table (additionalPrinterColumns), generation (1 on create, +1 when
 * anything but metadata, and status when it is a subresource, changes), and a refusal of
 * create while the definition is terminating (405, as the real handler answers).
 *
 * With `subresources.status` the main resource ignores status (dropped on create) and
 * `/status` writes it (status-subresource.ts).
 *
 * Known differences: `scale` is not served, and selectableFields are not offered as field
 * selectors.
 */
import { createHash } from "node:crypto";
import { failure } from "../../../wire/status.js";
import { details, StatusError } from "../../apimachinery/api-errors.js";
import { cloneJson, isJsonObject, type Json, type JsonObject, type KubeObject, obj, str } from "../../apimachinery/json.js";
import { dns1123Subdomain } from "../../apimachinery/name-validation.js";
import { nameOf, namespaceOf, setMeta, validateObjectMeta, validateObjectMetaUpdate } from "../../apimachinery/object-meta.js";
import type { StorageView } from "../../storage/storage-views.js";
import { statusSubresourceOf } from "../generic/status-subresource.js";
import type { ResourceStrategy } from "../generic/strategy.js";
import { namesOf, specOf, storageVersionOf, versionsOf, withoutStandardFinalizerRule } from "./crd-strategy.js";
import { customResourcePrinter } from "./printer.js";
import { customResourceShape } from "./schema-shape.js";
import { compileSchema, schemaErrors } from "./schema-validation.js";

/** discovery.StorageVersionHash: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256").update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString("base64");
}

/** Kube-aware version order (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > anything else, by name). */
function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return [Number(m[1]), m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0, Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    if (pa[1] !== pb[1]) return pb[1] - pa[1];
    if (pa[0] !== pb[0]) return pb[0] - pa[0];
    return pb[2] - pa[2];
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A view that shows stored objects with this version's apiVersion and stores them with the storage one. */
function apiVersionView(viewApiVersion: string, storedApiVersion: string): StorageView {
  const swap = (text: string, to: string): string => {
    const o = JSON.parse(text) as JsonObject;
    o["apiVersion"] = to;
    return JSON.stringify(o);
  };
  return { toView: (t) => swap(t, viewApiVersion), toStored: (t) => swap(t, storedApiVersion) };
}

const same = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Everything but metadata (and status, when it is a subresource): what moves generation. */
function generationContent(o: JsonObject, statusSubresource: boolean): JsonObject {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = o;
  if (statusSubresource) delete rest["status"];
  return rest;
}

export interface CustomResourceTypes {
  /** The definition's name (`<plural>.<group>`). */
  readonly crdName: string;
  /** The served versions' types, highest priority first. */
  readonly strategies: ResourceStrategy[];
  /** The storage version's type, served or not: what the cleanup of a deleted definition lists and deletes with. */
  readonly storage: ResourceStrategy;
}

/**
 * The strategies of a definition's served versions, in version priority order. `terminating`
 * says whether the definition is being deleted (create is then refused).
 */
export function customResourceTypes(crd: KubeObject, terminating: () => boolean): CustomResourceTypes {
  const spec = specOf(crd);
  const names = namesOf(crd);
  const group = str(spec, "group");
  const plural = str(names, "plural");
  const kind = str(names, "kind");
  const namespaced = str(spec, "scope") === "Namespaced";
  const storageVersion = storageVersionOf(crd);
  const storedApiVersion = `${group}/${storageVersion}`;
  const all = versionsOf(crd);
  const served = all.filter((v) => v["served"] === true).sort((a, b) => compareVersions(str(a, "name"), str(b, "name")));
  const servedApiVersions = served.map((v) => `${group}/${str(v, "name")}`);
  const shortNames = Array.isArray(names["shortNames"]) ? names["shortNames"].filter((s): s is string => typeof s === "string") : [];
  const hash = storageVersionHash(group, storageVersion, kind);
  // names.categories, listed by both discovery forms (customresource_discovery_controller.go).
  const categories = Array.isArray(names["categories"]) ? names["categories"].filter((s): s is string => typeof s === "string") : [];

  const strategyOf = (v: JsonObject): ResourceStrategy => {
    const main = mainStrategyOf(v);
    return isJsonObject(obj(v, "subresources")?.["status"]) ? { ...main, subresources: [statusSubresourceOf(main)] } : main;
  };
  const mainStrategyOf = (v: JsonObject): ResourceStrategy => {
    const version = str(v, "name");
    const schema = obj(obj(v, "schema"), "openAPIV3Schema");
    const validate = compileSchema(schema);
    const statusSubresource = isJsonObject(obj(v, "subresources")?.["status"]);
    const columns = Array.isArray(v["additionalPrinterColumns"]) ? v["additionalPrinterColumns"].filter(isJsonObject) : [];
    const apiVersion = `${group}/${version}`;
    const validateContent = (o: KubeObject) => schemaErrors(validate, o);
    return {
      group,
      version,
      resource: plural,
      kind,
      listKind: str(names, "listKind") || `${kind}List`,
      singularName: str(names, "singular") || kind.toLowerCase(),
      shortNames,
      ...(categories.length ? { categories } : {}),
      namespaced,
      verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
      storageVersionHash: hash,
      storagePrefix: `/registry/${group}/${plural}`,
      storageView: apiVersion === storedApiVersion ? undefined : apiVersionView(apiVersion, storedApiVersion),
      watchCache: true,
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
      internalKind: { group, kind },
      shape: customResourceShape(schema, kind),
      fieldLabels: ["metadata.name", "metadata.namespace"],
      selectableFields: (o) => ({ "metadata.name": nameOf(o), "metadata.namespace": namespaceOf(o) }),
      prepareForCreate(o) {
        if (statusSubresource) delete o["status"];
        setMeta(o, "generation", 1);
      },
      prepareForUpdate(o, old) {
        if (statusSubresource) {
          if (old["status"] === undefined) delete o["status"];
          else o["status"] = cloneJson(old["status"]);
        }
        const generation = typeof old.metadata["generation"] === "number" ? old.metadata["generation"] : 1;
        const changed = !same(generationContent(o, statusSubresource), generationContent(old, statusSubresource));
        setMeta(o, "generation", changed ? generation + 1 : generation);
      },
      validateCreate: (o) => [...withoutStandardFinalizerRule(validateObjectMeta(o, namespaced, dns1123Subdomain)), ...validateContent(o)],
      validateUpdate: (o, old) => [...withoutStandardFinalizerRule(validateObjectMetaUpdate(o, old)), ...validateContent(o)],
      canonicalize() {},
      pendingFinalizers: () => [],
      unstructured: { servedApiVersions, openAPIV3Schema: schema },
      tablePrinter: customResourcePrinter(columns),
      admitVerb(verb) {
        if (verb === "create" && terminating()) {
          const message = `${verb} not allowed while custom resource definition is terminating`;
          throw new StatusError(failure(405, "MethodNotAllowed", message, details({ group, kind: plural })));
        }
      },
    };
  };
  const strategies = served.map(strategyOf);
  const storageEntry = all.find((v) => str(v, "name") === storageVersion) ?? all[0] ?? { name: storageVersion };
  const storage = strategies.find((s) => s.version === storageVersion) ?? strategyOf(storageEntry);
  return { crdName: nameOf(crd), strategies, storage };
}
