/**
 * The merge schema of the served types, derived from their typed-json shapes plus the few
 * list and struct markers the Go types carry and the shapes do not: which lists are sets
 * (`+listType=set`), which are keyed (`+listType=map` / `patchMergeKey`), and which structs
 * are atomic (`+structType=atomic`). Both the strategic merge patch and server-side apply
 * read it.
 *
 * Source of the markers (api@v0.35.7 core/v1 types.go, apimachinery meta/v1 types.go):
 *  - ObjectMeta.finalizers: `+listType=set`, `patchStrategy:"merge"`;
 *  - ObjectMeta.ownerReferences: `+listType=map +listMapKey=uid`, `patchMergeKey:"uid"`;
 *  - ObjectMeta.managedFields: `+listType=atomic`, no patch strategy;
 *  - NamespaceSpec.finalizers: `+listType=atomic`, no patch strategy;
 *  - NamespaceStatus.conditions: `+listType=map +listMapKey=type`, `patchMergeKey:"type"`;
 *  - ObjectReference (events' regarding/related): `+structType=atomic`;
 *  - (Validating|Mutating)WebhookConfiguration.webhooks and the webhooks' matchConditions:
 *    `+listType=map +listMapKey=name`, `patchMergeKey:"name"`; LabelSelector (the webhooks'
 *    namespaceSelector and objectSelector): `+structType=atomic`;
 *  - ServiceSpec.ports: `+listType=map +listMapKey=port +listMapKey=protocol`, `patchMergeKey:"port"`;
 *    ServiceStatus.conditions: `+listType=map +listMapKey=type`, `patchMergeKey:"type"`;
 *  - ServiceAccount.secrets: `+listType=map +listMapKey=name`, `patchMergeKey:"name"`;
 *    LocalObjectReference (its imagePullSecrets): `+structType=atomic`.
 * A list without a marker is atomic, as structured-merge-diff treats it.
 */
import type { Shape, StructShape } from "../typed-json.js";

export type ListType = "atomic" | "set" | "map";

export type SchemaNode =
  | { readonly type: "scalar" }
  | {
      readonly type: "struct";
      readonly goName: string;
      readonly fields: ReadonlyMap<string, SchemaNode>;
      /** `+structType=atomic`: apply owns and replaces it whole (a strategic merge still recurses). */
      readonly atomic: boolean;
    }
  | { readonly type: "map"; readonly values: SchemaNode }
  | {
      readonly type: "list";
      readonly listType: ListType;
      readonly keys: readonly string[];
      readonly items: SchemaNode;
      /** Key fields with a schema default, which an applied item may leave out (a ServicePort's protocol: TCP). */
      readonly keyDefaults?: Readonly<Record<string, string>>;
    };

export const SCALAR: SchemaNode = { type: "scalar" };

const LIST_MARKERS: Record<string, { listType: ListType; keys: readonly string[]; keyDefaults?: Readonly<Record<string, string>> }> = {
  "ObjectMeta.finalizers": { listType: "set", keys: [] },
  "ObjectMeta.ownerReferences": { listType: "map", keys: ["uid"] },
  "NamespaceStatus.conditions": { listType: "map", keys: ["type"] },
  "ServiceSpec.ports": { listType: "map", keys: ["port", "protocol"], keyDefaults: { protocol: "TCP" } },
  "ServiceStatus.conditions": { listType: "map", keys: ["type"] },
  "ValidatingWebhookConfiguration.webhooks": { listType: "map", keys: ["name"] },
  "MutatingWebhookConfiguration.webhooks": { listType: "map", keys: ["name"] },
  "ValidatingWebhook.matchConditions": { listType: "map", keys: ["name"] },
  "MutatingWebhook.matchConditions": { listType: "map", keys: ["name"] },
  "ServiceAccount.secrets": { listType: "map", keys: ["name"] },
};

const ATOMIC_STRUCTS = new Set(["ObjectReference", "LabelSelector", "LocalObjectReference"]);

const cache = new WeakMap<StructShape, SchemaNode>();

function fromShape(shape: Shape, owner: string, fieldName: string): SchemaNode {
  switch (shape.kind) {
    case "struct":
      return structNode(shape);
    case "map":
      return { type: "map", values: fromShape(shape.values, owner, "") };
    case "list": {
      const marker = LIST_MARKERS[`${owner}.${fieldName}`] ?? { listType: "atomic" as const, keys: [] };
      const items = fromShape(shape.items, owner, "");
      return { type: "list", listType: marker.listType, keys: marker.keys, items, ...(marker.keyDefaults ? { keyDefaults: marker.keyDefaults } : {}) };
    }
    default:
      return SCALAR;
  }
}

function structNode(shape: StructShape): SchemaNode {
  const cached = cache.get(shape);
  if (cached) return cached;
  const fields = new Map<string, SchemaNode>();
  const node: SchemaNode = { type: "struct", goName: shape.goName, fields, atomic: ATOMIC_STRUCTS.has(shape.goName) };
  cache.set(shape, node);
  for (const f of shape.fields) fields.set(f.name, fromShape(f.shape, shape.goName, f.name));
  return node;
}

/** The schema of a top-level type. */
export function schemaOf(shape: StructShape): SchemaNode {
  return structNode(shape);
}

/** The schema of a map key or struct field; a field the struct does not declare is a scalar. */
export function childOf(node: SchemaNode, key: string): SchemaNode {
  if (node.type === "struct") return node.fields.get(key) ?? SCALAR;
  if (node.type === "map") return node.values;
  return SCALAR;
}

/** Whether apply treats the node as one value (owned and replaced whole). */
export function isAtomic(node: SchemaNode): boolean {
  return node.type === "scalar" || (node.type === "struct" && node.atomic) || (node.type === "list" && node.listType === "atomic");
}
