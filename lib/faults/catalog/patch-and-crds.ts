/**
 * Faults of patching, server-side apply, field validation and custom resources (doc1 "Patch
 * content types", "Field validation behaviour", subresources, tables and media types of
 * custom-definition types): the defects of fake servers and partial implementations, as wire
 * rewrites where the wire shows them and emulator failpoints where they are state.
 */
import type { Fault } from "../types.js";
import { editJson, statusBody } from "./wire-edits.js";

/** The path before its query, and the query (with its `?`, or ""). */
const splitQuery = (path: string): [string, string] => {
  const q = path.indexOf("?");
  return q < 0 ? [path, ""] : [path.slice(0, q), path.slice(q)];
};

/** Sets or removes one query parameter of a request path. */
function withQuery(path: string, edit: (q: URLSearchParams) => void): string {
  const [p, query] = splitQuery(path);
  const q = new URLSearchParams(query);
  edit(q);
  const s = q.toString();
  return s ? `${p}?${s}` : p;
}

/** A write (create, update, patch) by method. */
const isWrite = (method: string): boolean => method === "POST" || method === "PUT" || method === "PATCH";

/** A namespaced status subresource path: …/namespaces/{ns}/{resource}/{name}/status. */
const NAMESPACED_STATUS = /^(\/apis?\/.+\/namespaces\/[^/]+\/[^/]+\/[^/]+)\/status$/;

/** The custom-resources suite's group (`crd-….tollgate.dev`). */
const CUSTOM_GROUP = /^\/apis\/crd-[^/]*\.tollgate\.dev\//;

/** A decimal resourceVersion n made to go down as n goes up (still decimal, no longer ordered). */
const reversedVersion = (rv: string): string => (/^[0-9]+$/.test(rv) ? String(10 ** 12 - Number(rv)) : rv);

/**
 * Custom resources asked for in protobuf only get JSON. The proxy calls `request` and then
 * `requestHeaders` for one request with nothing in between, so the path `request` saw is the
 * one whose headers follow.
 */
function protobufAnsweredJson(): { request: (method: string, path: string) => string; requestHeaders: (h: Record<string, string>) => Record<string, string> } {
  let custom = false;
  return {
    request: (_method, path) => {
      custom = CUSTOM_GROUP.test(path);
      return path;
    },
    requestHeaders: (h) => (custom && /^application\/vnd\.[^.]+\.protobuf$/.test(h["accept"] ?? "") ? { ...h, accept: "application/json" } : h),
  };
}

export const PATCH_AND_CRD_FAULTS: readonly Fault[] = [
  // ── Patch types ────────────────────────────────────────────────────────────────────────
  {
    name: "patch-method-not-allowed",
    mode: "wire",
    rules: ["doc1.paths.patch-resource", "doc1.verbs.patch-distinct"],
    models: "a server that routes GET, PUT, POST and DELETE to a resource but not PATCH (405), as aggregated servers and fakes built on plain CRUD do",
    wire: {
      // The PATCH goes to a path nothing serves, so nothing changes; its 404 becomes the 405.
      request: (method, path) => {
        if (method !== "PATCH") return path;
        const [p, q] = splitQuery(path);
        return `${p}/tollgate-unrouted${q}`;
      },
      response: (r) =>
        r.method === "PATCH" && r.code === 404
          ? { ...r, code: 405, body: statusBody(405, "MethodNotAllowed", "the server does not allow this method on the requested resource") }
          : r,
    },
  },
  {
    name: "json-patch-move-keeps-source",
    mode: "emulator",
    rules: ["doc1.patch.json-patch"],
    models: "a json-patch implementation that does a move as a copy, leaving the source member in place",
    failpoints: ["json-patch-move-keeps-source"],
  },
  {
    name: "json-patch-ignores-test",
    mode: "emulator",
    rules: ["doc1.patch.json-patch-test-fails"],
    models: "a json-patch implementation that skips test operations, so a patch whose test does not hold is applied anyway",
    failpoints: ["json-patch-ignores-test"],
  },
  {
    name: "merge-patch-ignores-null",
    mode: "emulator",
    rules: ["doc1.patch.merge-patch"],
    models: "a merge patch that skips null members (an object merge that treats null as no change) instead of deleting those keys, against RFC 7386",
    failpoints: ["merge-patch-ignores-null"],
  },
  {
    name: "strategic-merge-as-merge-patch",
    mode: "emulator",
    rules: ["doc1.patch.strategic-merge-builtin"],
    models:
      "a server that takes application/strategic-merge-patch+json for built-in types but applies it as a JSON merge patch (lists replaced whole, $deleteFromPrimitiveList not understood), as fake servers without the Go types' patch strategies do",
    failpoints: ["strategic-merge-as-merge-patch"],
  },
  {
    name: "patch-415-as-400",
    mode: "wire",
    rules: ["doc1.patch.unsupported-type-415", "doc1.errors.415-unsupported-media-type"],
    models: "a server that answers a patch in a content type it does not serve with 400 BadRequest instead of 415 UnsupportedMediaType",
    wire: {
      response: (r) =>
        r.method === "PATCH" && r.code === 415
          ? {
              ...r,
              code: 400,
              body: editJson(r.body, (o) => {
                o["code"] = 400;
                o["reason"] = "BadRequest";
              }),
            }
          : r,
    },
  },
  {
    name: "merge-patch-cbor-served",
    mode: "emulator",
    rules: ["doc1.media.rule5-no-cbor-patch"],
    models:
      "a server that takes application/merge-patch+cbor as one more merge patch type, though no CBOR form of json-patch, merge-patch or strategic-merge-patch exists",
    failpoints: ["merge-patch-cbor-served"],
  },

  // ── Server-side apply ─────────────────────────────────────────────────────────────────
  {
    name: "apply-cannot-create",
    mode: "emulator",
    rules: ["doc1.patch.apply-create-or-patch", "doc1.verbs.create-apply-absent"],
    models: "a server whose apply only patches: an apply to a missing object is 404 (client-go's fake clientset answered `not found`)",
    reference: "https://github.com/kubernetes/kubernetes/issues/103816",
    failpoints: ["apply-cannot-create"],
  },
  {
    name: "apply-yaml-body-refused",
    mode: "emulator",
    rules: ["doc1.media.apply-patch-yaml"],
    models: "a server that decodes application/apply-patch+yaml bodies as JSON only, so a YAML document is refused with 400",
    failpoints: ["apply-yaml-body-refused"],
  },
  {
    name: "apply-json-body-refused",
    mode: "emulator",
    rules: ["doc1.patch.apply-accepts-json"],
    models: "a server that reads apply bodies as YAML block documents only and refuses one written as JSON (400), though JSON is YAML",
    failpoints: ["apply-json-body-refused"],
  },
  {
    name: "apply-as-merge-patch",
    mode: "emulator",
    rules: ["doc1.patch.ssa-managed-fields", "doc1.patch.ssa-conflicts"],
    models:
      "a server that takes an apply as a plain merge patch, without the field manager: no managedFields entry, no conflicts, fields the applier drops are kept (controller-runtime's fake client treated apply as a strategic merge patch)",
    reference: "https://github.com/kubernetes-sigs/controller-runtime/pull/2679",
    failpoints: ["apply-as-merge-patch"],
  },
  {
    name: "apply-force-dropped",
    mode: "wire",
    rules: ["doc1.patch.ssa-force"],
    models: "a server (or a proxy in front of it) that drops the force option of an apply, so a forced apply still conflicts",
    wire: {
      request: (method, path) => (method === "PATCH" && /[?&]force=/.test(path) ? withQuery(path, (q) => q.delete("force")) : path),
    },
  },
  {
    name: "apply-noop-writes",
    mode: "emulator",
    rules: ["doc1.patch.ssa-no-value-dependent"],
    models:
      "a server whose apply writes even when the result equals the stored object (a new resourceVersion on every repeat), a long-standing server-side apply bug",
    reference: "https://github.com/kubernetes/kubernetes/issues/95460",
    failpoints: ["apply-noop-writes"],
  },

  // ── Field validation ──────────────────────────────────────────────────────────────────
  {
    name: "strict-validation-as-warn",
    mode: "emulator",
    rules: ["doc1.field-validation.strict-400", "doc1.errors.400-strict-unknown-fields", "doc1.versioning.cap-field-validation"],
    models:
      "a server that does not enforce fieldValidation=Strict: unknown and duplicate fields only warned about and the write stored (fakes that ignore the write options)",
    failpoints: ["strict-validation-as-warn"],
  },
  {
    name: "duplicate-fields-unflagged",
    mode: "emulator",
    rules: ["doc1.field-validation.unknown-definition"],
    models: "a server that decodes bodies with a last-key-wins JSON parser, so a field that appears twice is neither warned about nor refused under Strict",
    failpoints: ["duplicate-fields-unflagged"],
  },
  {
    name: "field-warnings-joined",
    mode: "emulator",
    rules: ["doc1.headers.warning-per-field", "doc1.field-validation.warn-succeeds"],
    models: "a server that reports all the unknown fields of a request in one Warning item instead of one item per field",
    failpoints: ["field-warnings-joined"],
  },
  {
    name: "field-validation-default-ignore",
    mode: "wire",
    rules: ["doc1.field-validation.warn-default"],
    models:
      "a server whose default field validation is Ignore (servers before 1.23, or with the ServerSideFieldValidation gate off), so a write without fieldValidation drops unknown fields silently",
    reference: "https://github.com/kubernetes/kubernetes/pull/106722",
    wire: {
      request: (method, path) => (isWrite(method) && !/[?&]fieldValidation=/.test(path) ? withQuery(path, (q) => q.set("fieldValidation", "Ignore")) : path),
    },
  },
  {
    name: "field-validation-ignore-as-warn",
    mode: "wire",
    rules: ["doc1.field-validation.ignore"],
    models: "a server that does not know fieldValidation=Ignore and applies its default Warn, warning about the fields it should drop silently",
    wire: {
      request: (method, path) => (isWrite(method) && /[?&]fieldValidation=Ignore/.test(path) ? withQuery(path, (q) => q.set("fieldValidation", "Warn")) : path),
    },
  },

  // ── Custom resources ──────────────────────────────────────────────────────────────────
  {
    name: "crd-no-pruning",
    mode: "emulator",
    rules: ["doc1.field-validation.ignore", "doc1.field-validation.preserve-unknown"],
    models:
      "a server that stores custom resources as sent, without structural pruning of the fields the schema does not declare (apiextensions v1beta1's preserveUnknownFields: true)",
    reference: "https://github.com/kubernetes/enhancements/issues/2332",
    failpoints: ["crd-no-pruning"],
  },
  {
    name: "crd-types-unchecked",
    mode: "emulator",
    rules: ["doc1.field-validation.types-always"],
    models: "a server that stores custom resources without checking field types against the schema (a store of arbitrary JSON, as fake dynamic clients are)",
    failpoints: ["crd-types-unchecked"],
  },
  {
    name: "custom-resource-versions-unordered",
    mode: "wire",
    rules: ["doc1.versioning.rv-orderable-conformance"],
    models:
      "a server whose custom resources get decimal resourceVersions that do not grow with writes (a storage backend with versions of its own), so they cannot be ordered",
    wire: {
      response: (r) =>
        r.method === "POST" && r.code === 201 && CUSTOM_GROUP.test(r.path)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                const meta = o["metadata"] as Record<string, unknown> | undefined;
                if (meta && typeof meta["resourceVersion"] === "string") meta["resourceVersion"] = reversedVersion(meta["resourceVersion"]);
              }),
            }
          : r,
    },
  },
  {
    name: "custom-resource-protobuf-answered-json",
    mode: "wire",
    rules: ["doc1.media.protobuf-some-types"],
    models:
      "a server that answers a custom resource in JSON to a client that accepts only protobuf, instead of refusing with 406 (protobuf is not served for custom types)",
    wire: protobufAnsweredJson(),
  },
  {
    name: "status-routed-to-main-resource",
    mode: "wire",
    rules: ["doc1.service.subresources"],
    models:
      "a server that serves …/{name}/status as the main resource, so a status write changes spec too and status is not separate (controller-runtime's fake client before 0.15)",
    reference: "https://github.com/kubernetes-sigs/controller-runtime/issues/2230",
    wire: {
      request: (_method, path) => {
        const [p, q] = splitQuery(path);
        const m = NAMESPACED_STATUS.exec(p);
        return m && CUSTOM_GROUP.test(p) ? `${m[1]}${q}` : path;
      },
    },
  },
  {
    name: "namespaced-subresource-unrouted",
    mode: "wire",
    rules: ["doc1.paths.subresource-namespaced"],
    models: "a server that routes a namespaced object's path but not the subresource paths below it (404 for …/namespaces/{ns}/{resource}/{name}/status)",
    wire: {
      request: (_method, path) => {
        const [p, q] = splitQuery(path);
        return NAMESPACED_STATUS.test(p) ? `${p}-unrouted${q}` : path;
      },
    },
  },
  {
    name: "subresource-across-namespaces",
    mode: "wire",
    rules: ["doc1.terms.subresource-single-resource"],
    models:
      "a router that takes the all-namespaces form …/{resource}/{name}/status as the collection and ignores the rest, answering a list across namespaces instead of 404",
    wire: {
      request: (method, path) => {
        const [p, q] = splitQuery(path);
        const m = /^(\/apis\/[^/]+\/[^/]+\/(?!namespaces\/)[^/]+)\/[^/]+\/status$/.exec(p);
        return method === "GET" && m ? `${m[1]}${q}` : path;
      },
    },
  },
  {
    name: "table-row-object-dropped",
    mode: "wire",
    rules: ["doc1.table.rows-shape"],
    models: "a server whose Table rows carry the cells but not the embedded object (includeObject not honoured)",
    wire: {
      response: (r) =>
        r.code === 200 && r.body.includes('"kind":"Table"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                if (o["kind"] !== "Table" || !Array.isArray(o["rows"])) return;
                for (const row of o["rows"] as Record<string, unknown>[]) delete row["object"];
              }),
            }
          : r,
    },
  },
];
