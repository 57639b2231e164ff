/**
 * The create-only virtual types that answer from the authorizer and authenticator and store
 * nothing (201 with the request echoed and a status): authorization.k8s.io/v1
 * SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview, and
 * authentication.k8s.io/v1 TokenReview and SelfSubjectReview. No name is needed. Validation
 * texts are the real ones (exactly one of resourceAttributes or nonResourceAttributes; user or
 * groups for a SubjectAccessReview; a TokenReview needs a token, 400).
 *
 * Each is a REST override (registry/generic/strategy.ts): the request comes in as data, and the
 * authorizer, the rules resolver and the token reviewer are capabilities auth/ provides (with
 * auth off: AlwaysAllow and no token reviewer, so a TokenReview authenticates nothing).
 *
 * Known differences: no fieldSelector/labelSelector attributes are evaluated (RBAC ignores them
 * too); the echoed spec keeps the fields the emulator reads; bodies are read as JSON only.
 */
import { badRequest, invalidError } from "../../apimachinery/api-errors.js";
import { formatTime } from "../../apimachinery/api-time.js";
import { type FieldError, invalid as invalidField } from "../../apimachinery/field-errors.js";
import { isJsonObject, type JsonObject, type KubeObject } from "../../apimachinery/json.js";
import { objectHead } from "../../apimachinery/object-meta.js";
import { ANY, field, struct } from "../../apimachinery/typed-json.js";
import { type User, userInfoJson } from "../../apimachinery/user.js";
import { Capability } from "../generic/capabilities.js";
import type { ResourceStrategy, RestCreate, RestRequest, RestResult } from "../generic/strategy.js";
import { AUTHORIZER, type Authorizer, type RequestAttributes } from "./authorizer.js";

const AUTHORIZATION = "authorization.k8s.io";
const AUTHENTICATION = "authentication.k8s.io";

/** Who a bearer token belongs to: what a TokenReview asks (auth/authenticator.ts answers it). */
export interface TokenReviewer {
  /**
   * The token's user and the audiences it is valid for among those asked (the API server's by
   * default), or undefined for an unknown, expired or invalidated token, or one for none of them.
   */
  userOfToken(token: string, audiences?: readonly string[]): Promise<{ readonly user: User; readonly audiences: readonly string[] } | undefined>;
}

export const TOKEN_REVIEWER = new Capability<TokenReviewer>("token reviewer");

/** authorization/v1 ResourceRule and NonResourceRule as JSON (verbs always written). */
export interface ResolvedRules {
  readonly resourceRules: readonly JsonObject[];
  readonly nonResourceRules: readonly JsonObject[];
  readonly incomplete: boolean;
  /** The resolution errors (a missing role, say), as the authorizer words them; "" for none. */
  readonly evaluationError: string;
}

/** What a SelfSubjectRulesReview asks: the rules that apply to a user in a namespace (the authorizer's RulesFor). */
export interface RulesResolver {
  resolveRules(user: User, namespace: string): Promise<ResolvedRules>;
}

export const RULES_RESOLVER = new Capability<RulesResolver>("rules resolver");

const text = (o: JsonObject | undefined, key: string): string => (o && typeof o[key] === "string" ? (o[key] as string) : "");
const texts = (o: JsonObject | undefined, key: string): string[] => {
  const v = o?.[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
};

const RESOURCE_ATTRIBUTE_KEYS = ["namespace", "verb", "group", "version", "resource", "subresource", "name"] as const;

/** ResourceAttributes/NonResourceAttributes as decoded, in Go field order, empty ones left out. */
function attributesJson(spec: JsonObject): JsonObject {
  const out: JsonObject = {};
  const ra = isJsonObject(spec["resourceAttributes"]) ? spec["resourceAttributes"] : undefined;
  const nra = isJsonObject(spec["nonResourceAttributes"]) ? spec["nonResourceAttributes"] : undefined;
  if (ra) out["resourceAttributes"] = Object.fromEntries(RESOURCE_ATTRIBUTE_KEYS.filter((k) => text(ra, k)).map((k) => [k, text(ra, k)]));
  if (nra) out["nonResourceAttributes"] = Object.fromEntries(["path", "verb"].filter((k) => text(nra, k)).map((k) => [k, text(nra, k)]));
  return out;
}

function attributesOf(spec: JsonObject): RequestAttributes {
  const ra = isJsonObject(spec["resourceAttributes"]) ? spec["resourceAttributes"] : undefined;
  if (ra) {
    const at = (k: string): string => text(ra, k);
    return {
      kind: "resource",
      verb: at("verb"),
      group: at("group"),
      version: at("version"),
      resource: at("resource"),
      subresource: at("subresource"),
      namespace: at("namespace"),
      name: at("name"),
    };
  }
  const nra = isJsonObject(spec["nonResourceAttributes"]) ? spec["nonResourceAttributes"] : {};
  return { kind: "nonResource", verb: text(nra, "verb"), path: text(nra, "path") };
}

/** ValidateSubjectAccessReviewSpec's part on the attributes. */
function validateAttributes(spec: JsonObject, local: boolean): FieldError[] {
  const hasRa = isJsonObject(spec["resourceAttributes"]);
  const hasNra = isJsonObject(spec["nonResourceAttributes"]);
  const errs: FieldError[] = [];
  if (hasRa && hasNra)
    errs.push(invalidField("spec.nonResourceAttributes", spec["nonResourceAttributes"] ?? null, "cannot be specified in combination with resourceAttributes"));
  if (!hasRa && !hasNra)
    errs.push(invalidField("spec.resourceAttributes", null, "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  if (local && hasNra) errs.push(invalidField("spec.nonResourceAttributes", spec["nonResourceAttributes"] ?? null, "disallowed on this kind of request"));
  return errs;
}

/** A capability the reviews need; without it (auth off) a review is refused. */
function required<T>(request: RestRequest, key: Capability<T>): T {
  const provided = request.capabilities.get(key);
  if (!provided) throw badRequest("authorization is not enabled on this server");
  return provided;
}

function requestUser(request: RestRequest): User {
  if (!request.user) throw badRequest("no user on this request");
  return request.user;
}

async function accessReviewStatus(authorizer: Authorizer, user: User, spec: JsonObject): Promise<JsonObject> {
  const d = await authorizer.authorize(user, attributesOf(spec));
  const status: JsonObject = { allowed: d.allowed };
  if (d.reason) status["reason"] = d.reason;
  return status;
}

type Kind = "SubjectAccessReview" | "SelfSubjectAccessReview" | "LocalSubjectAccessReview";

async function serveAccessReview(kind: Kind, request: RestRequest): Promise<RestResult> {
  const authorizer = required(request, AUTHORIZER);
  const input = request.body;
  const spec = isJsonObject(input["spec"]) ? input["spec"] : {};
  const errs = validateAttributes(spec, kind === "LocalSubjectAccessReview");
  const namespace = request.namespace;
  let user: User;
  const echoed: JsonObject = attributesJson(spec);
  if (kind === "SelfSubjectAccessReview") {
    user = requestUser(request);
  } else {
    const extra = isJsonObject(spec["extra"]) ? spec["extra"] : undefined;
    user = { username: text(spec, "user"), uid: text(spec, "uid"), groups: texts(spec, "groups") };
    if (!user.username && user.groups.length === 0) errs.push(invalidField("spec.user", user.username, "at least one of user or group must be specified"));
    if (user.username) echoed["user"] = user.username;
    if (user.groups.length) echoed["groups"] = [...user.groups];
    if (extra && Object.keys(extra).length) echoed["extra"] = extra;
    if (user.uid) echoed["uid"] = user.uid;
  }
  if (errs.length) throw invalidError({ group: AUTHORIZATION, kind }, "", errs);
  const metadata: JsonObject = {};
  if (kind === "LocalSubjectAccessReview") {
    const meta = isJsonObject(input["metadata"]) ? input["metadata"] : {};
    const bodyNamespace = text(meta, "namespace");
    if (bodyNamespace && bodyNamespace !== namespace) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    const ra = isJsonObject(spec["resourceAttributes"]) ? spec["resourceAttributes"] : {};
    if (text(ra, "namespace") !== namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
    metadata["namespace"] = namespace;
  }
  const out: KubeObject = { kind, apiVersion: `${AUTHORIZATION}/v1`, metadata, spec: echoed, status: await accessReviewStatus(authorizer, user, echoed) };
  return { code: 201, object: out };
}

async function serveTokenReview(request: RestRequest): Promise<RestResult> {
  // Only tokens this server issued are known (auth on or off); any other comes back unanswered.
  const reviewer = request.capabilities.get(TOKEN_REVIEWER);
  const input = request.body;
  const spec = isJsonObject(input["spec"]) ? input["spec"] : {};
  const token = text(spec, "token");
  if (!token) throw badRequest(`token is required for TokenReview in ${AUTHENTICATION}`);
  const audiences = texts(spec, "audiences");
  const found = await reviewer?.userOfToken(token, audiences.length ? audiences : undefined);
  const echoed: JsonObject = { token };
  if (audiences.length) echoed["audiences"] = audiences;
  const status: JsonObject = found ? { authenticated: true, user: userInfoJson(found.user) as JsonObject, audiences: [...found.audiences] } : { user: {} };
  const out: KubeObject = { kind: "TokenReview", apiVersion: `${AUTHENTICATION}/v1`, metadata: {}, spec: echoed, status };
  return { code: 201, object: out };
}

async function serveSelfSubjectReview(request: RestRequest): Promise<RestResult> {
  const user = requestUser(request);
  const out: KubeObject = {
    kind: "SelfSubjectReview",
    apiVersion: `${AUTHENTICATION}/v1`,
    metadata: { creationTimestamp: formatTime(request.now()) },
    status: { userInfo: userInfoJson(user) as JsonObject },
  };
  return { code: 201, object: out };
}

/** The rules that apply to the requester in spec.namespace; the reply is a new object, so its spec is empty. */
async function serveRulesReview(request: RestRequest): Promise<RestResult> {
  const resolver = required(request, RULES_RESOLVER);
  const input = request.body;
  const spec = isJsonObject(input["spec"]) ? input["spec"] : {};
  const namespace = text(spec, "namespace");
  if (!namespace) throw badRequest("no namespace on request");
  const rules = await resolver.resolveRules(requestUser(request), namespace);
  const status: JsonObject = {
    resourceRules: [...rules.resourceRules],
    nonResourceRules: [...rules.nonResourceRules],
    incomplete: rules.incomplete,
  };
  if (rules.evaluationError) status["evaluationError"] = rules.evaluationError;
  const out: KubeObject = { kind: "SelfSubjectRulesReview", apiVersion: `${AUTHORIZATION}/v1`, metadata: {}, spec: {}, status };
  return { code: 201, object: out };
}

function virtualType(group: string, resource: string, kind: string, namespaced: boolean, serve: RestCreate): ResourceStrategy {
  const shape = struct("v1", kind, [...objectHead(), field("spec", ANY), field("status", ANY)]);
  return {
    group,
    version: "v1",
    resource,
    kind,
    listKind: `${kind}List`,
    singularName: kind.toLowerCase(),
    shortNames: [],
    namespaced,
    verbs: ["create"],
    storageVersionHash: "",
    storagePrefix: `/registry/tollgate-virtual/${resource}`,
    watchCache: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    internalKind: { group, kind },
    shape,
    fieldLabels: [],
    selectableFields: () => ({}),
    prepareForCreate() {},
    prepareForUpdate() {},
    validateCreate: () => [],
    validateUpdate: () => [],
    canonicalize() {},
    pendingFinalizers: () => [],
    createOverride: serve,
  };
}

export const REVIEW_STRATEGIES: readonly ResourceStrategy[] = [
  // A SelfSubjectReview says who asks; it needs no body.
  virtualType(AUTHENTICATION, "selfsubjectreviews", "SelfSubjectReview", false, { emptyBodyAllowed: true, create: serveSelfSubjectReview }),
  virtualType(AUTHENTICATION, "tokenreviews", "TokenReview", false, { create: serveTokenReview }),
  virtualType(AUTHORIZATION, "localsubjectaccessreviews", "LocalSubjectAccessReview", true, {
    create: (r) => serveAccessReview("LocalSubjectAccessReview", r),
  }),
  virtualType(AUTHORIZATION, "selfsubjectaccessreviews", "SelfSubjectAccessReview", false, { create: (r) => serveAccessReview("SelfSubjectAccessReview", r) }),
  virtualType(AUTHORIZATION, "selfsubjectrulesreviews", "SelfSubjectRulesReview", false, { create: serveRulesReview }),
  virtualType(AUTHORIZATION, "subjectaccessreviews", "SubjectAccessReview", false, { create: (r) => serveAccessReview("SubjectAccessReview", r) }),
];
