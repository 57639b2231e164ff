/**
 * OpenAPI component schemas generated from the emulator's own typed shapes (typed-json.ts), named
 * as the real server names them (`io.k8s.api.core.v1.ConfigMap`), with the list and patch
 * extensions of the merge schema (managed-fields/schema.ts, which the strategic merge patch reads).
 * Shapes carry only the Go package alias (`v1`), so the full package comes from the group of the
 * type that holds them, except for the shared meta and core types named below.
 */
import { isJsonObject, type JsonObject } from "../../apimachinery/json.js";
import { type SchemaNode, schemaOf } from "../../apimachinery/managed-fields/schema.js";
import type { Shape, StructShape } from "../../apimachinery/typed-json.js";

export type Schemas = Map<string, JsonObject>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const META_TYPES = new Set([
  "ObjectMeta",
  "OwnerReference",
  "ManagedFieldsEntry",
  "LabelSelector",
  "LabelSelectorRequirement",
  "DeleteOptions",
  "Preconditions",
  "Condition",
]);
const CORE_TYPES = new Set(["ObjectReference", "EventSource"]);

/**
 * What the shapes do not carry: the fields a type's Go definition requires (no omitempty and no
 * `+optional`), lists marked `+listType=atomic` (the merge schema treats unmarked lists the same,
 * but only marked ones carry the extension) and structs marked `+structType=atomic` beyond the
 * merge schema's. From the api@v0.35.7 and apimachinery types' markers.
 */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  "io.k8s.api.core.v1.Event": ["metadata", "involvedObject"],
  "io.k8s.api.core.v1.NamespaceCondition": ["type", "status"],
  "io.k8s.api.events.v1.Event": ["eventTime"],
  "io.k8s.api.events.v1.EventSeries": ["count", "lastObservedTime"],
  "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": ["apiVersion", "kind", "name", "uid"],
  "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": ["key", "operator"],
  "io.k8s.apimachinery.pkg.apis.meta.v1.Condition": ["type", "status", "lastTransitionTime", "reason", "message"],
  "io.k8s.api.core.v1.ServicePort": ["port"],
  "io.k8s.api.core.v1.PortStatus": ["port", "protocol"],
  "io.k8s.api.discovery.v1.EndpointSlice": ["addressType", "endpoints"],
  "io.k8s.api.discovery.v1.Endpoint": ["addresses"],
  "io.k8s.api.discovery.v1.ForZone": ["name"],
  "io.k8s.api.discovery.v1.ForNode": ["name"],
  "io.k8s.api.authentication.v1.TokenRequest": ["spec"],
  "io.k8s.api.authentication.v1.TokenRequestSpec": ["audiences"],
  "io.k8s.api.authentication.v1.TokenRequestStatus": ["token", "expirationTimestamp"],
  "io.k8s.api.rbac.v1.PolicyRule": ["verbs"],
  "io.k8s.api.rbac.v1.Subject": ["kind", "name"],
  "io.k8s.api.rbac.v1.RoleRef": ["apiGroup", "kind", "name"],
  "io.k8s.api.rbac.v1.RoleBinding": ["roleRef"],
  "io.k8s.api.rbac.v1.ClusterRoleBinding": ["roleRef"],
  "io.k8s.api.admissionregistration.v1.ValidatingWebhook": ["name", "clientConfig", "sideEffects", "admissionReviewVersions"],
  "io.k8s.api.admissionregistration.v1.MutatingWebhook": ["name", "clientConfig", "sideEffects", "admissionReviewVersions"],
  "io.k8s.api.admissionregistration.v1.ServiceReference": ["namespace", "name"],
  "io.k8s.api.admissionregistration.v1.MatchCondition": ["name", "expression"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition": ["spec"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec": ["group", "names", "scope", "versions"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames": ["plural", "kind"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion": ["name", "served", "storage"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionCondition": ["type", "status"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceColumnDefinition": ["name", "type", "jsonPath"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceConversion": ["strategy"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookConversion": ["conversionReviewVersions"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ServiceReference": ["namespace", "name"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ValidationRule": ["rule"],
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.SelectableField": ["jsonPath"],
};
const ATOMIC_LISTS = new Set([
  "ObjectMeta.managedFields",
  "NamespaceSpec.finalizers",
  "DeleteOptions.dryRun",
  "ServiceSpec.clusterIPs",
  "ServiceSpec.externalIPs",
  "ServiceSpec.ipFamilies",
  "ServiceSpec.loadBalancerSourceRanges",
  "LoadBalancerStatus.ingress",
  "LoadBalancerIngress.ports",
  "EndpointSlice.endpoints",
  "EndpointSlice.ports",
  "Endpoint.addresses",
  "EndpointHints.forZones",
  "EndpointHints.forNodes",
  "ServiceAccount.imagePullSecrets",
  "TokenRequestSpec.audiences",
]);
/** Fields whose Go type is intstr.IntOrString (the shapes hold them as any JSON value). */
const INT_OR_STRING_FIELDS = new Set(["ServicePort.targetPort"]);
const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
const ATOMIC_STRUCTS = new Set(["OwnerReference"]);

export const metaName = (name: string): string => `${META}.${name}`;
export const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** The Go package of a group's types, as OpenAPI names it. */
export function packageOf(group: string, version: string): string {
  if (group === "") return `io.k8s.api.core.${version}`;
  if (group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  if (group.endsWith(".k8s.io")) return `io.k8s.api.${group.split(".")[0]}.${version}`;
  // Custom resources: the group's labels reversed (`com.example.stable.v1.CronTab`).
  return `${group.split(".").reverse().join(".")}.${version}`;
}

/** Schemas of the meta types no shape describes (the wire forms of Time, FieldsV1, Status and lists). */
export function addMetaSchemas(out: Schemas): void {
  out.set(metaName("Time"), {
    description: "A point in time, RFC 3339, seconds precision.",
    type: "string",
    format: "date-time",
  });
  out.set(metaName("MicroTime"), { description: "A point in time, RFC 3339, microseconds precision.", type: "string", format: "date-time" });
  out.set(metaName("FieldsV1"), { description: "The set of fields a manager owns, as a JSON tree of f:/k:/v:/i: keys.", type: "object" });
  out.set(metaName("Patch"), { description: "A PATCH request body; its form depends on the Content-Type.", type: "object" });
  out.set(metaName("ListMeta"), {
    description: "Metadata of a list or a Status.",
    type: "object",
    properties: {
      continue: { description: "Token for the next chunk of a limited list; absent on the last one.", type: "string" },
      remainingItemCount: { description: "Estimated number of items after this chunk.", type: "integer", format: "int64" },
      resourceVersion: { description: "Opaque version of the list, for watches and consistent reads.", type: "string" },
      selfLink: { description: "Legacy field, never set.", type: "string" },
    },
  });
  out.set(metaName("StatusCause"), {
    description: "One cause of a failure.",
    type: "object",
    properties: {
      field: { description: "Path of the field at fault, when one is.", type: "string" },
      message: { description: "What is wrong, for people.", type: "string" },
      reason: { description: "What is wrong, as a code.", type: "string" },
    },
  });
  out.set(metaName("StatusDetails"), {
    description: "Which object a Status is about, and its causes.",
    type: "object",
    properties: {
      causes: {
        description: "Causes of the failure, one per problem.",
        type: "array",
        items: { allOf: [ref(metaName("StatusCause"))], default: {} },
        "x-kubernetes-list-type": "atomic",
      },
      group: { description: "API group of the object concerned.", type: "string" },
      kind: { description: "Kind (or resource) of the object concerned.", type: "string" },
      name: { description: "Name of the object concerned.", type: "string" },
      retryAfterSeconds: { description: "Seconds to wait before retrying, when given.", type: "integer", format: "int32" },
      uid: { description: "UID of the object concerned.", type: "string" },
    },
  });
  out.set(metaName("Status"), {
    description: "The outcome of a request that returns no object: an error, or a deletion's success.",
    type: "object",
    properties: {
      apiVersion: { description: "Group and version of this object's schema.", type: "string" },
      code: { description: "The HTTP status code of the answer.", type: "integer", format: "int32" },
      details: { allOf: [ref(metaName("StatusDetails"))], description: "Which object, and the causes." },
      kind: { description: "Kind of this object.", type: "string" },
      message: { description: "What happened, for people.", type: "string" },
      metadata: { allOf: [ref(metaName("ListMeta"))], default: {}, description: "List metadata." },
      reason: { description: "Why the request failed, as a code (empty when unknown).", type: "string" },
      status: { description: "Success or Failure.", type: "string" },
    },
  });
  out.set("io.k8s.apimachinery.pkg.runtime.RawExtension", { description: "An embedded object of any kind, as JSON.", type: "object" });
  out.set(metaName("WatchEvent"), {
    description: "One change seen by a watch.",
    type: "object",
    required: ["type", "object"],
    properties: {
      object: {
        allOf: [ref("io.k8s.apimachinery.pkg.runtime.RawExtension")],
        description: "The object after the change, the last state of a deleted one, or a Status for an ERROR.",
      },
      type: { default: "", type: "string" },
    },
  });
}

/** Names the struct shapes reachable from one type, and writes their schemas into `out`. */
export class ShapeSchemas {
  private readonly names = new Map<StructShape, string>();
  constructor(
    private readonly out: Schemas,
    private readonly pkg: string,
  ) {}

  nameOf(shape: StructShape): string {
    const known = this.names.get(shape);
    if (known) return known;
    const name = META_TYPES.has(shape.goName)
      ? metaName(shape.goName)
      : CORE_TYPES.has(shape.goName)
        ? `io.k8s.api.core.v1.${shape.goName}`
        : `${this.pkg}.${shape.goName}`;
    this.names.set(shape, name);
    // Another shape of the same name already written (a type shared by several groups) is kept.
    if (!this.out.has(name)) {
      this.out.set(name, {});
      this.out.set(name, this.structSchema(shape, name));
    }
    return name;
  }

  private structSchema(shape: StructShape, name: string): JsonObject {
    const node = schemaOf(shape);
    const properties: JsonObject = {};
    for (const f of [...shape.fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = node.type === "struct" ? node.fields.get(f.name) : undefined;
      const intOrString = INT_OR_STRING_FIELDS.has(`${shape.goName}.${f.name}`);
      if (intOrString && !this.out.has(INT_OR_STRING)) {
        this.out.set(INT_OR_STRING, { description: "An int32 or a string, as JSON a number or a string.", type: "string", format: "int-or-string" });
      }
      const fieldSchema =
        shape.goName === "ManagedFieldsEntry" && f.name === "fieldsV1"
          ? { allOf: [ref(metaName("FieldsV1"))] }
          : intOrString
            ? { allOf: [ref(INT_OR_STRING)] }
            : this.valueSchema(f.shape, child, f.emit !== "pointer");
      const atomicList: JsonObject = ATOMIC_LISTS.has(`${shape.goName}.${f.name}`) ? { "x-kubernetes-list-type": "atomic" } : {};
      properties[f.name] = { ...fieldSchema, ...atomicList, description: `${shape.goName}.${f.name}.` };
    }
    const schema: JsonObject = { description: `${shape.goName}.`, type: "object", properties };
    const required = REQUIRED[name];
    if (required) schema["required"] = [...required];
    if ((node.type === "struct" && node.atomic) || ATOMIC_STRUCTS.has(shape.goName)) schema["x-kubernetes-map-type"] = "atomic";
    return schema;
  }

  private valueSchema(shape: Shape, node: SchemaNode | undefined, valueStruct: boolean): JsonObject {
    switch (shape.kind) {
      case "string":
        return { type: "string" };
      case "bool":
        return { type: "boolean" };
      case "int32":
      case "int64":
        return { type: "integer", format: shape.kind };
      case "float64":
        return { type: "number", format: "double" };
      case "bytes":
        return { type: "string", format: "byte" };
      case "time":
        return { allOf: [ref(metaName("Time"))] };
      case "microtime":
        return { allOf: [ref(metaName("MicroTime"))] };
      case "any":
        return { type: "object" };
      case "map":
        return { type: "object", additionalProperties: this.valueSchema(shape.values, node?.type === "map" ? node.values : undefined, true) };
      case "list": {
        const schema: JsonObject = { type: "array", items: this.valueSchema(shape.items, node?.type === "list" ? node.items : undefined, true) };
        if (node?.type === "list" && node.listType !== "atomic") {
          schema["x-kubernetes-list-type"] = node.listType;
          if (node.listType === "map") schema["x-kubernetes-list-map-keys"] = [...node.keys];
          // The merge schema's set and keyed lists are the ones with patchStrategy "merge".
          schema["x-kubernetes-patch-strategy"] = "merge";
          if (node.keys[0] !== undefined) schema["x-kubernetes-patch-merge-key"] = node.keys[0];
        }
        return schema;
      }
      case "struct": {
        const name = this.nameOf(shape);
        return valueStruct ? { allOf: [ref(name)], default: {} } : { allOf: [ref(name)] };
      }
    }
  }
}

/** The schema `$ref` of a property, looking through `allOf`, or its `type`: what the comparison test reads. */
export function typeOfProperty(p: JsonObject): string {
  const all = p["allOf"];
  if (Array.isArray(all) && isJsonObject(all[0]) && typeof all[0]["$ref"] === "string") return all[0]["$ref"];
  if (typeof p["$ref"] === "string") return p["$ref"];
  return String(p["type"]);
}
