/**
 * v1 validation of ValidatingWebhookConfiguration and MutatingWebhookConfiguration, with the
 * real server's texts and order (k/k pkg/apis/admissionregistration/validation, apiserver
 * pkg/util/webhook ValidateWebhookURL/ValidateWebhookService, apimachinery IsFullyQualifiedName
 * and ValidateLabelSelector). Per webhook: name, rules, failurePolicy, matchPolicy, sideEffects,
 * timeoutSeconds, selectors, (reinvocationPolicy), clientConfig, matchConditions; then
 * admissionReviewVersions and the duplicate-name check.
 *
 * On update, the rules the old object already broke are relaxed as upstream relaxes them:
 * sideEffects Some/Unknown, unknown review versions and repeated names stay allowed when the
 * old object had them. Bad values that are lists print as Go's %#v (`[]string{"*", "a"}`).
 *
 * Known difference: matchConditions (CEL expressions) are refused with a Forbidden cause, since
 * the emulator cannot evaluate CEL; a real server compiles and evaluates them.
 */
import { duplicate, type FieldError, forbidden, invalid, notSupported, required } from "../../apimachinery/field-errors.js";
import { goPrinted } from "../../apimachinery/go-printed.js";
import { isJsonObject, type Json, type JsonObject, type KubeObject, obj, str, stringList } from "../../apimachinery/json.js";
import { dns1035Label, dns1123Subdomain, labelValue, qualifiedName } from "../../apimachinery/name-validation.js";
import { validateLabels, validateObjectMeta } from "../../apimachinery/object-meta.js";
import { parseGoUrl } from "./go-url.js";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const ALL_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"];
const NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const REINVOCATION_POLICIES = ["IfNeeded", "Never"];
const SCOPES = ["*", "Cluster", "Namespaced"];
const REVIEW_VERSIONS = ["v1", "v1beta1"];

/** Go's %#v of a string slice of the given element type. */
const goSlice = (type: string, values: readonly string[]): Json => goPrinted(`[]${type}{${values.map((v) => JSON.stringify(v)).join(", ")}}`);

/** utilvalidation.IsFullyQualifiedName. */
function fullyQualifiedName(path: string, name: string): FieldError[] {
  if (name === "") return [required(path)];
  const errs = dns1123Subdomain(name);
  if (errs.length) return [invalid(path, name, errs.join(","))];
  if (name.split(".").length < 3) return [invalid(path, name, "should be a domain with at least three segments separated by dots")];
  return [];
}

const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** validateResources (subresources allowed, wildcards exclusive). */
function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((r, i) => {
    if (r === "") {
      errs.push(required(`${path}[${i}]`));
      return;
    }
    if (r === "*/*") doubleWildcard = true;
    if (r === "*") singleWildcard = true;
    const slash = r.indexOf("/");
    if (slash < 0) {
      withoutSub = r !== "*";
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(invalid(`${path}[${i}]`, r, `if '${res}/*' is present, must not specify ${r}`));
    if (subWithWildcardRes.has(sub)) errs.push(invalid(`${path}[${i}]`, r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === "*") withWildcardSub.add(res);
    if (res === "*") subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(path, goSlice("string", resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub)
    errs.push(invalid(path, goSlice("string", resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** validateRuleWithOperations. */
function validateRule(rule: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strings(rule["operations"]);
  if (ops.length === 0) errs.push(required(`${path}.operations`));
  if (ops.length > 1 && ops.includes("*")) {
    errs.push(invalid(`${path}.operations`, goSlice("admissionregistration.OperationType", ops), "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(rule["apiGroups"]);
  if (groups.length === 0) errs.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes("*"))
    errs.push(invalid(`${path}.apiGroups`, goSlice("string", groups), "if '*' is present, must not specify other API groups"));
  const versions = strings(rule["apiVersions"]);
  if (versions.length === 0) errs.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes("*"))
    errs.push(invalid(`${path}.apiVersions`, goSlice("string", versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === "") errs.push(required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(strings(rule["resources"]), `${path}.resources`));
  const scope = rule["scope"];
  if (typeof scope === "string" && !SCOPES.includes(scope)) errs.push(notSupported(`${path}.scope`, scope, SCOPES));
  return errs;
}

/** metav1validation.ValidateLabelSelector (invalid label values not allowed). */
function validateLabelSelector(selector: JsonObject, path: string): FieldError[] {
  const errs = validateLabels(stringMapOf(selector["matchLabels"]), `${path}.matchLabels`);
  const exprs = Array.isArray(selector["matchExpressions"]) ? selector["matchExpressions"] : [];
  exprs.forEach((e, i) => {
    if (!isJsonObject(e)) return;
    const p = `${path}.matchExpressions[${i}]`;
    const operator = str(e, "operator");
    const values = strings(e["values"]);
    if (operator === "In" || operator === "NotIn") {
      if (values.length === 0) errs.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === "Exists" || operator === "DoesNotExist") {
      if (values.length > 0) errs.push(forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(invalid(`${p}.operator`, operator, "not a valid selector operator"));
    }
    const key = str(e, "key");
    for (const msg of qualifiedName(key)) errs.push(invalid(`${p}.key`, key, msg));
    values.forEach((v, j) => {
      for (const msg of labelValue(v)) errs.push(invalid(`${p}.values[${j}]`, v, msg));
    });
  });
  return errs;
}

function stringMapOf(v: Json | undefined): Record<string, string> {
  // fromEntries keeps a `__proto__` key, for validation to refuse.
  return isJsonObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : {};
}

const URL_FORM = "; desired format: https://host[/path]";

/** webhook.ValidateWebhookURL with forceHttps. */
function validateUrl(url: string, path: string): FieldError[] {
  const parsed = parseGoUrl(url);
  if (!parsed.ok) return [required(path, `url must be a valid URL: ${parsed.error}${URL_FORM}`)];
  const u = parsed.url;
  const errs: FieldError[] = [];
  if (u.scheme !== "https") errs.push(invalid(path, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host === "") errs.push(invalid(path, u.host, `host must be specified${URL_FORM}`));
  if (u.user !== undefined) errs.push(invalid(path, u.user, "user information is not permitted in the URL"));
  if (u.fragment !== "") errs.push(invalid(path, u.fragment, "fragments are not permitted in the URL"));
  if (u.rawQuery !== "") errs.push(invalid(path, u.rawQuery, "query parameters are not permitted in the URL"));
  return errs;
}

/** webhook.ValidateWebhookService. */
function validateService(service: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(service, "name") === "") errs.push(required(`${path}.name`));
  if (str(service, "namespace") === "") errs.push(required(`${path}.namespace`));
  const port = typeof service["port"] === "number" ? service["port"] : 0;
  if (port < 1 || port > 65535) errs.push(invalid(`${path}.port`, port, "port is not valid: must be between 1 and 65535, inclusive"));
  const urlPath = service["path"];
  if (typeof urlPath !== "string" || urlPath === "/" || urlPath === "") return errs;
  if (urlPath === "//") return [...errs, invalid(`${path}.path`, urlPath, "segment[0] may not be empty")];
  if (!urlPath.startsWith("/")) errs.push(invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let rest = urlPath.slice(1);
  if (rest.endsWith("/")) rest = rest.slice(0, -1);
  rest.split("/").forEach((step, i) => {
    if (step === "") {
      errs.push(invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of dns1123Subdomain(step)) errs.push(invalid(`${path}.path`, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

interface Options {
  readonly requireNoSideEffects: boolean;
  readonly requireRecognizedReviewVersion: boolean;
  readonly requireUniqueNames: boolean;
}

function validateWebhook(hook: JsonObject, mutating: boolean, opts: Options, path: string): FieldError[] {
  const errs = fullyQualifiedName(`${path}.name`, str(hook, "name"));
  const rules = Array.isArray(hook["rules"]) ? hook["rules"] : [];
  rules.forEach((rule, i) => {
    if (isJsonObject(rule)) errs.push(...validateRule(rule, `${path}.rules[${i}]`));
  });
  const failurePolicy = hook["failurePolicy"];
  if (typeof failurePolicy === "string" && !FAILURE_POLICIES.includes(failurePolicy))
    errs.push(notSupported(`${path}.failurePolicy`, failurePolicy, FAILURE_POLICIES));
  const matchPolicy = hook["matchPolicy"];
  if (typeof matchPolicy === "string" && !MATCH_POLICIES.includes(matchPolicy)) errs.push(notSupported(`${path}.matchPolicy`, matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  const sideEffects = hook["sideEffects"];
  if (typeof sideEffects !== "string") errs.push(required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(", ")}`));
  else if (!allowedSideEffects.includes(sideEffects)) errs.push(notSupported(`${path}.sideEffects`, sideEffects, allowedSideEffects));
  const timeout = hook["timeoutSeconds"];
  if (typeof timeout === "number" && (timeout > 30 || timeout < 1))
    errs.push(invalid(`${path}.timeoutSeconds`, timeout, "the timeout value must be between 1 and 30 seconds"));
  const namespaceSelector = obj(hook, "namespaceSelector");
  if (namespaceSelector) errs.push(...validateLabelSelector(namespaceSelector, `${path}.namespaceSelector`));
  const objectSelector = obj(hook, "objectSelector");
  if (objectSelector) errs.push(...validateLabelSelector(objectSelector, `${path}.objectSelector`));
  const reinvocation = hook["reinvocationPolicy"];
  if (mutating && typeof reinvocation === "string" && !REINVOCATION_POLICIES.includes(reinvocation)) {
    errs.push(notSupported(`${path}.reinvocationPolicy`, reinvocation, REINVOCATION_POLICIES));
  }
  const cc = obj(hook, "clientConfig") ?? {};
  const url = cc["url"];
  const service = obj(cc, "service");
  if ((typeof url === "string") === (service !== undefined)) errs.push(required(`${path}.clientConfig`, "exactly one of url or service is required"));
  else if (typeof url === "string") errs.push(...validateUrl(url, `${path}.clientConfig.url`));
  else if (service) errs.push(...validateService(service, `${path}.clientConfig.service`));
  if (Array.isArray(hook["matchConditions"]) && hook["matchConditions"].length > 0) {
    errs.push(forbidden(`${path}.matchConditions`, "not supported by this emulator (it cannot evaluate CEL expressions)"));
  }
  return errs;
}

/** validateAdmissionReviewVersions. */
function validateReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length < 1) return [required(path, `must specify one of ${REVIEW_VERSIONS.join(", ")}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(`${path}[${i}]`, v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const msg of dns1035Label(v)) errs.push(invalid(`${path}[${i}]`, v, msg));
  });
  if (requireRecognized && !versions.some((v) => REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(path, goSlice("string", versions), `must include at least one of ${REVIEW_VERSIONS.join(", ")}`));
  }
  return errs;
}

function hooksOf(o: KubeObject | undefined): JsonObject[] {
  const hooks = o?.["webhooks"];
  return Array.isArray(hooks) ? hooks.filter(isJsonObject) : [];
}

/** What an update may keep from the old object (the Update validation options upstream derives). */
function optionsFor(old: KubeObject | undefined): Options {
  if (!old) return { requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueNames: true };
  const hooks = hooksOf(old);
  const names = hooks.map((h) => str(h, "name"));
  return {
    requireNoSideEffects: hooks.every((h) => NO_SIDE_EFFECTS.includes(str(h, "sideEffects"))),
    requireRecognizedReviewVersion: hooks.every((h) => {
      const versions = stringList(h, "admissionReviewVersions");
      return versions.length === 0 || versions.some((v) => REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueNames: new Set(names).size === names.length,
  };
}

/** The whole object's validation: metadata (a DNS subdomain name, cluster-scoped), then each webhook. */
export function validateWebhookConfiguration(o: KubeObject, mutating: boolean, old: KubeObject | undefined): FieldError[] {
  const opts = optionsFor(old);
  const errs = validateObjectMeta(o, false, dns1123Subdomain);
  const names = new Set<string>();
  hooksOf(o).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, mutating, opts, path));
    errs.push(...validateReviewVersions(stringList(hook, "admissionReviewVersions"), opts.requireRecognizedReviewVersion, `${path}.admissionReviewVersions`));
    const name = str(hook, "name");
    if (opts.requireUniqueNames && name !== "") {
      if (names.has(name)) errs.push(duplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}
