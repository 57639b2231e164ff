/**
 * core/v1 ServiceAccount: namespaced, a DNS subdomain name, secrets, imagePullSecrets and
 * automountServiceAccountToken as stored; and its `token` subresource (create only: a
 * TokenRequest, token-request.ts). Served with auth on or off, as a real server serves it whatever its authorizer.
 *
 * Known differences: the `default` ServiceAccount in each namespace comes only with the
 * namespace content controllers on (namespace/content-controller.ts); no legacy token Secrets.
 */

import type { FieldError } from "../../../apimachinery/field-errors.js";
import type { KubeObject } from "../../../apimachinery/json.js";
import { dns1123Subdomain } from "../../../apimachinery/name-validation.js";
import { nameOf, namespaceOf, objectHead, validateObjectMeta, validateObjectMetaUpdate } from "../../../apimachinery/object-meta.js";
import { BOOL, field, listOf, STRING, struct } from "../../../apimachinery/typed-json.js";
import { OBJECT_REFERENCE } from "../../events/strategy.js";
import type { ResourceStrategy, SubresourceStrategy } from "../../generic/strategy.js";
import { serveTokenRequest, TOKEN_REQUEST_SHAPE } from "./token-request.js";

const LOCAL_OBJECT_REFERENCE = struct("v1", "LocalObjectReference", [field("name", STRING)]);

const SERVICE_ACCOUNT_SHAPE = struct("v1", "ServiceAccount", [
  ...objectHead(),
  field("secrets", listOf(OBJECT_REFERENCE)),
  field("imagePullSecrets", listOf(LOCAL_OBJECT_REFERENCE)),
  field("automountServiceAccountToken", BOOL, "pointer"),
]);

const validate = (o: KubeObject): FieldError[] => validateObjectMeta(o, true, dns1123Subdomain);

/** `serviceaccounts/{name}/token`: POST a TokenRequest, get a token for the account back (201). */
export const SERVICE_ACCOUNT_TOKEN: SubresourceStrategy = {
  name: "token",
  verbs: ["create"],
  table: false,
  resetFields: [],
  prepareForUpdate() {},
  validateUpdate: () => [],
  discoveryKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
  discoveryShape: TOKEN_REQUEST_SHAPE,
  create: { create: serveTokenRequest },
};

export const serviceAccountStrategy: ResourceStrategy = {
  group: "",
  version: "v1",
  resource: "serviceaccounts",
  kind: "ServiceAccount",
  listKind: "ServiceAccountList",
  singularName: "serviceaccount",
  shortNames: ["sa"],
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "pbx9ZvyFpBE=",
  storagePrefix: "/registry/serviceaccounts",
  watchCache: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  internalKind: { group: "", kind: "ServiceAccount" },
  shape: SERVICE_ACCOUNT_SHAPE,
  fieldLabels: ["metadata.name", "metadata.namespace"],
  selectableFields: (o) => ({ "metadata.name": nameOf(o), "metadata.namespace": namespaceOf(o) }),
  prepareForCreate() {},
  prepareForUpdate() {},
  validateCreate: validate,
  validateUpdate: (o, old) => [...validateObjectMetaUpdate(o, old), ...validate(o)],
  canonicalize() {},
  pendingFinalizers: () => [],
  subresources: [SERVICE_ACCOUNT_TOKEN],
};
