/**
 * core/v1 Service, as a 1.35 server serves it (k/k pkg/registry/core/service): namespaced,
 * DNS-1035 label names, short name `svc`, category `all`, a `status` subresource.
 *
 * A write runs in the real order: the v1 defaults (SetDefaults_Service: type ClusterIP,
 * sessionAffinity None, port protocol TCP, targetPort = port, internalTrafficPolicy Cluster,
 * externalTrafficPolicy Cluster for NodePort and LoadBalancer, allocateLoadBalancerNodePorts
 * true), then the REST layer's begin hooks (storage/storage.go beginCreate, beginUpdate: an
 * update keeps the allocated values a client left out, clusterIP and clusterIPs kept in step,
 * ipFamilyPolicy and ipFamilies set, a cluster IP and node ports allocated, cluster-ip.ts),
 * then PrepareForCreate/Update (status reset, or kept) and validation (validation.ts).
 *
 * Known differences: `services/proxy` is not served; the cluster is single-stack IPv4
 * (10.96.0.0/12 unless the server is given another range: serviceStrategyFor), so a dual-stack
 * request is refused as on such a cluster.
 */

import type { FieldError } from "../../../apimachinery/field-errors.js";
import { goQuote, invalid } from "../../../apimachinery/field-errors.js";
import { goPrinted, invalidObject } from "../../../apimachinery/go-printed.js";
import { cloneJson, isJsonObject, type Json, type JsonObject, type KubeObject, obj, str, stringList } from "../../../apimachinery/json.js";
import { nameOf, namespaceOf, objectHead, validateObjectMetaUpdate } from "../../../apimachinery/object-meta.js";
import { ANY, BOOL, field, INT32, INT64, listOf, mapOf, STRING, struct, TIME } from "../../../apimachinery/typed-json.js";
import type { ResourceStrategy, SubresourceStrategy, WriteContext } from "../../generic/strategy.js";
import { allocateAddress, allocateNodePorts, type ServiceRange, serviceRange } from "./cluster-ip.js";
import { SERVICE_PRINTER } from "./printer.js";
import { isHeadless, validateClusterIPFields, validateService, validateServiceUpdate } from "./validation.js";

/** intstr.IntOrString: a JSON number or string (checked by validation). */
const INT_OR_STRING = ANY;

const SERVICE_PORT = struct("v1", "ServicePort", [
  field("name", STRING),
  field("protocol", STRING),
  field("appProtocol", STRING, "pointer"),
  field("port", INT32, "always"),
  field("targetPort", INT_OR_STRING),
  field("nodePort", INT32),
]);

const SESSION_AFFINITY_CONFIG = struct("v1", "SessionAffinityConfig", [
  field("clientIP", struct("v1", "ClientIPConfig", [field("timeoutSeconds", INT32, "pointer")]), "pointer"),
]);

const SERVICE_SPEC = struct("v1", "ServiceSpec", [
  field("ports", listOf(SERVICE_PORT)),
  field("selector", mapOf(STRING)),
  field("clusterIP", STRING),
  field("clusterIPs", listOf(STRING)),
  field("type", STRING),
  field("externalIPs", listOf(STRING)),
  field("sessionAffinity", STRING),
  field("loadBalancerIP", STRING),
  field("loadBalancerSourceRanges", listOf(STRING)),
  field("externalName", STRING),
  field("externalTrafficPolicy", STRING),
  field("healthCheckNodePort", INT32),
  field("publishNotReadyAddresses", BOOL),
  field("sessionAffinityConfig", SESSION_AFFINITY_CONFIG, "pointer"),
  field("ipFamilies", listOf(STRING)),
  field("ipFamilyPolicy", STRING, "pointer"),
  field("allocateLoadBalancerNodePorts", BOOL, "pointer"),
  field("loadBalancerClass", STRING, "pointer"),
  field("internalTrafficPolicy", STRING, "pointer"),
  field("trafficDistribution", STRING, "pointer"),
]);

const PORT_STATUS = struct("v1", "PortStatus", [field("port", INT32, "always"), field("protocol", STRING, "always"), field("error", STRING, "pointer")]);

const LOAD_BALANCER_INGRESS = struct("v1", "LoadBalancerIngress", [
  field("ip", STRING),
  field("hostname", STRING),
  field("ipMode", STRING, "pointer"),
  field("ports", listOf(PORT_STATUS)),
]);

/** meta/v1 Condition (no omitempty but on observedGeneration). */
export const META_CONDITION = struct("v1", "Condition", [
  field("type", STRING, "always"),
  field("status", STRING, "always"),
  field("observedGeneration", INT64),
  field("lastTransitionTime", TIME, "always"),
  field("reason", STRING, "always"),
  field("message", STRING, "always"),
]);

const SERVICE_STATUS = struct("v1", "ServiceStatus", [
  field("loadBalancer", struct("v1", "LoadBalancerStatus", [field("ingress", listOf(LOAD_BALANCER_INGRESS))])),
  field("conditions", listOf(META_CONDITION)),
]);

const SERVICE_SHAPE = struct("v1", "Service", [...objectHead(), field("spec", SERVICE_SPEC), field("status", SERVICE_STATUS)]);

const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

/** SetDefaults_Service (k/k pkg/apis/core/v1/defaults.go), on a copy: what decoding a v1 body adds. */
export function serviceDefaults(input: JsonObject): JsonObject {
  const o = cloneJson(input);
  const spec: JsonObject = isJsonObject(o["spec"]) ? o["spec"] : {};
  o["spec"] = spec;
  if (!str(spec, "sessionAffinity")) spec["sessionAffinity"] = "None";
  if (spec["sessionAffinity"] === "None") delete spec["sessionAffinityConfig"];
  if (spec["sessionAffinity"] === "ClientIP") {
    const config = isJsonObject(spec["sessionAffinityConfig"]) ? spec["sessionAffinityConfig"] : {};
    const clientIP = isJsonObject(config["clientIP"]) ? config["clientIP"] : {};
    if (typeof clientIP["timeoutSeconds"] !== "number") clientIP["timeoutSeconds"] = 10800;
    config["clientIP"] = clientIP;
    spec["sessionAffinityConfig"] = config;
  }
  if (!str(spec, "type")) spec["type"] = "ClusterIP";
  for (const p of objects(spec["ports"])) {
    if (!str(p, "protocol")) p["protocol"] = "TCP";
    const target = p["targetPort"];
    if (target === undefined || target === null || target === 0 || target === "") p["targetPort"] = typeof p["port"] === "number" ? p["port"] : 0;
  }
  const type = spec["type"];
  if ((type === "NodePort" || type === "LoadBalancer") && !str(spec, "externalTrafficPolicy")) spec["externalTrafficPolicy"] = "Cluster";
  if ((type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP") && typeof spec["internalTrafficPolicy"] !== "string") {
    spec["internalTrafficPolicy"] = "Cluster";
  }
  if (type === "LoadBalancer" && typeof spec["allocateLoadBalancerNodePorts"] !== "boolean") spec["allocateLoadBalancerNodePorts"] = true;
  return o;
}

function applyDefaults(o: KubeObject): JsonObject {
  const defaulted = serviceDefaults(o);
  o["spec"] = defaulted["spec"] ?? {};
  return o["spec"] as JsonObject;
}

const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

/** normalizeClusterIPs (storage/rest.go): clusterIP and clusterIPs kept in step. */
function normalizeClusterIPs(spec: JsonObject, oldSpec: JsonObject | undefined): void {
  const ip = str(spec, "clusterIP");
  const ips = stringList(spec, "clusterIPs");
  if (!oldSpec) {
    if (ip !== "" && ips.length === 0) spec["clusterIPs"] = [ip];
    return;
  }
  const oldIP = str(oldSpec, "clusterIP");
  const oldIPs = stringList(oldSpec, "clusterIPs");
  if (oldIPs.length > 0 && ips.length === 0 && oldIP === ip) spec["clusterIPs"] = [...oldIPs];
  // storage's sameClusterIPs compares the plural fields only.
  if (oldIP !== ip && same(oldIPs, stringList(spec, "clusterIPs"))) {
    if (oldIP !== "" && ip === "") delete spec["clusterIPs"];
    else spec["clusterIPs"] = [ip];
  }
}

/** patchAllocatedValues: what the server allocated stays when a client resubmits without it. */
function patchAllocatedValues(spec: JsonObject, oldSpec: JsonObject): void {
  if (str(spec, "type") !== "ExternalName" && str(oldSpec, "type") !== "ExternalName") {
    if (str(spec, "clusterIP") === "") {
      const oldIP = str(oldSpec, "clusterIP");
      if (oldIP) spec["clusterIP"] = oldIP;
    }
    const oldIPs = stringList(oldSpec, "clusterIPs");
    if (stringList(spec, "clusterIPs").length === 0 && oldIPs.length > 0) spec["clusterIPs"] = [...oldIPs];
  }
  const nodePorts = (t: string): boolean => t === "NodePort" || t === "LoadBalancer";
  if (nodePorts(str(spec, "type")) && nodePorts(str(oldSpec, "type"))) {
    const used = new Set(objects(spec["ports"]).map((p) => p["nodePort"]));
    const byName = new Map(objects(oldSpec["ports"]).map((p) => [str(p, "name"), p["nodePort"]] as const));
    for (const p of objects(spec["ports"])) {
      if (typeof p["nodePort"] === "number" && p["nodePort"] !== 0) continue;
      const oldValue = byName.get(str(p, "name"));
      if (typeof oldValue === "number" && oldValue !== 0 && !used.has(oldValue)) p["nodePort"] = oldValue;
    }
  }
}

/** initIPFamilyFields for a single-stack IPv4 cluster: the policy and families a real server sets, or its refusals. */
function initIPFamilyFields(spec: JsonObject, oldSpec: JsonObject | undefined): FieldError[] {
  if (str(spec, "type") === "ExternalName") return [];
  // Checked before the policy and families are inferred from them, and before any allocation.
  const early = validateClusterIPFields(spec);
  if (early.length) return early;
  if (typeof spec["ipFamilyPolicy"] !== "string") {
    const oldPolicy = oldSpec?.["ipFamilyPolicy"];
    if (typeof oldPolicy === "string") spec["ipFamilyPolicy"] = oldPolicy;
    else spec["ipFamilyPolicy"] = isHeadless(spec) && Object.keys(obj(spec, "selector") ?? {}).length === 0 ? "RequireDualStack" : "SingleStack";
  }
  const families = stringList(spec, "ipFamilies");
  const ips = stringList(spec, "clusterIPs");
  const errs: FieldError[] = [];
  ips.forEach((ip, i) => {
    if (ip === "None" || i < families.length) return;
    if (ip.includes(":"))
      errs.push(invalid(`spec.clusterIPs[${i}]`, goPrinted(`[]string{${ips.map(goQuote).join(", ")}}`), "IPv6 is not configured on this cluster"));
    else families.push("IPv4");
  });
  if (errs.length) return errs;
  if (isHeadless(spec) && Object.keys(obj(spec, "selector") ?? {}).length === 0) {
    if (families.length === 0) families.push("IPv4");
    if (families.length < 2 && spec["ipFamilyPolicy"] !== "SingleStack") families.push(families[0] === "IPv4" ? "IPv6" : "IPv4");
    spec["ipFamilies"] = families;
    return [];
  }
  if (spec["ipFamilyPolicy"] === "RequireDualStack")
    errs.push(invalid("spec.ipFamilyPolicy", "RequireDualStack", "this cluster is not configured for dual-stack services"));
  families.forEach((f, i) => {
    if (f !== "IPv4") errs.push(invalid(`spec.ipFamilies[${i}]`, f, "not configured on this cluster"));
  });
  if (errs.length) return errs;
  if (families.length === 0) families.push("IPv4");
  spec["ipFamilies"] = families;
  return [];
}

function refuse(o: KubeObject, errors: FieldError[]): void {
  if (errors.length) throw invalidObject({ group: "", kind: "Service" }, nameOf(o), errors);
}

/** allocClusterIPs: none for ExternalName or headless; else the requested address or a free one. */
function allocateClusterIP(o: KubeObject, spec: JsonObject, context: WriteContext, range: ServiceRange): void {
  if (str(spec, "type") === "ExternalName" || isHeadless(spec)) return;
  const got = allocateAddress(spec, stringList(spec, "clusterIPs")[0] ?? "", context.stored(), range);
  if (typeof got !== "string") refuse(o, [got]);
  else {
    spec["clusterIP"] = got;
    spec["clusterIPs"] = [got];
  }
}

function beginCreate(o: KubeObject, context: WriteContext, range: ServiceRange): void {
  const spec = applyDefaults(o);
  normalizeClusterIPs(spec, undefined);
  refuse(o, initIPFamilyFields(spec, undefined));
  allocateClusterIP(o, spec, context, range);
  refuse(o, allocateNodePorts(o, context.stored()));
}

function beginUpdate(o: KubeObject, old: KubeObject, context: WriteContext, range: ServiceRange): void {
  const spec = applyDefaults(o);
  const oldSpec = obj(old, "spec") ?? {};
  patchAllocatedValues(spec, oldSpec);
  normalizeClusterIPs(spec, oldSpec);
  refuse(o, initIPFamilyFields(spec, oldSpec));
  // From ExternalName to a type with a cluster IP: allocated as on create (updateClusterIPs case A).
  if (str(oldSpec, "type") === "ExternalName" && str(spec, "type") !== "ExternalName") allocateClusterIP(o, spec, context, range);
  refuse(o, allocateNodePorts(o, context.stored(), old));
}

/** dropTypeDependentFields: switching to ExternalName clears what the server allocated, if the client kept it unchanged. */
function dropTypeDependentFields(spec: JsonObject, oldSpec: JsonObject): void {
  if (str(oldSpec, "type") !== "ExternalName" && str(spec, "type") === "ExternalName") {
    if (str(spec, "clusterIP") === str(oldSpec, "clusterIP") && same(stringList(spec, "clusterIPs"), stringList(oldSpec, "clusterIPs"))) {
      delete spec["clusterIP"];
      delete spec["clusterIPs"];
    }
    if (same(stringList(spec, "ipFamilies"), stringList(oldSpec, "ipFamilies"))) delete spec["ipFamilies"];
    if (spec["ipFamilyPolicy"] === oldSpec["ipFamilyPolicy"]) delete spec["ipFamilyPolicy"];
  }
  const nodePorts = (t: string): boolean => t === "NodePort" || t === "LoadBalancer";
  if (nodePorts(str(oldSpec, "type")) && !nodePorts(str(spec, "type"))) {
    const oldPorts = new Set(objects(oldSpec["ports"]).map((p) => p["nodePort"]));
    const ports = objects(spec["ports"]);
    if (ports.every((p) => !p["nodePort"] || oldPorts.has(p["nodePort"]))) for (const p of ports) delete p["nodePort"];
  }
  if (nodePorts(str(oldSpec, "type")) && !nodePorts(str(spec, "type")) && spec["externalTrafficPolicy"] === oldSpec["externalTrafficPolicy"]) {
    delete spec["externalTrafficPolicy"];
  }
  if (
    str(oldSpec, "type") === "LoadBalancer" &&
    str(spec, "type") !== "LoadBalancer" &&
    spec["allocateLoadBalancerNodePorts"] === oldSpec["allocateLoadBalancerNodePorts"]
  ) {
    delete spec["allocateLoadBalancerNodePorts"];
  }
}

/** `services/{name}/status`: writes status and metadata, keeps spec (serviceStatusStrategy). */
const SERVICE_STATUS_SUBRESOURCE: SubresourceStrategy = {
  name: "status",
  verbs: ["get", "patch", "update"],
  table: true,
  resetFields: ["spec"],
  prepareForUpdate(o, old) {
    o["spec"] = cloneJson(old["spec"] ?? {});
  },
  validateUpdate: (o, old) => validateObjectMetaUpdate(o, old),
};

/** The Service type of a server whose cluster IPs come from `range` (--service-cluster-ip-range). */
export function serviceStrategyFor(range: ServiceRange): ResourceStrategy {
  return {
    ...serviceStrategy,
    beginCreate: (o, context) => beginCreate(o, context, range),
    beginUpdate: (o, old, context) => beginUpdate(o, old, context, range),
  };
}

const DEFAULT_RANGE = serviceRange();

export const serviceStrategy: ResourceStrategy = {
  group: "",
  version: "v1",
  resource: "services",
  kind: "Service",
  listKind: "ServiceList",
  singularName: "service",
  shortNames: ["svc"],
  categories: ["all"],
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "0/CO1lhkEBI=",
  storagePrefix: "/registry/services/specs",
  watchCache: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  internalKind: { group: "", kind: "Service" },
  shape: SERVICE_SHAPE,
  fieldLabels: ["metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type"],
  selectableFields: (o) => ({
    "metadata.name": nameOf(o),
    "metadata.namespace": namespaceOf(o),
    "spec.clusterIP": str(obj(o, "spec"), "clusterIP"),
    "spec.type": str(obj(o, "spec"), "type"),
  }),
  decodeDefaults: serviceDefaults,
  beginCreate: (o, context) => beginCreate(o, context, DEFAULT_RANGE),
  beginUpdate: (o, old, context) => beginUpdate(o, old, context, DEFAULT_RANGE),
  prepareForCreate(o) {
    o["status"] = {};
  },
  prepareForUpdate(o, old) {
    o["status"] = cloneJson(old["status"] ?? {});
    const spec = obj(o, "spec");
    if (spec) dropTypeDependentFields(spec, obj(old, "spec") ?? {});
    if (str(spec, "type") !== "LoadBalancer" && isJsonObject(o["status"])) o["status"]["loadBalancer"] = {};
  },
  validateCreate: validateService,
  validateUpdate: validateServiceUpdate,
  canonicalize() {},
  resetFields: ["status"],
  pendingFinalizers: () => [],
  tablePrinter: SERVICE_PRINTER,
  subresources: [SERVICE_STATUS_SUBRESOURCE],
};
