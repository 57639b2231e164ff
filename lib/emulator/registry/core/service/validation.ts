/**
 * Service validation, the rules of ValidateService and ValidateServiceUpdate in 1.35 (k/k
 * pkg/apis/core/validation) that an emulated cluster meets: ObjectMeta with DNS-1035 label
 * names, ports (names, numbers, protocols, target ports, duplicates), type, session affinity,
 * the cluster IP fields, traffic policies; on update, clusterIPs may not change once set.
 *
 * Known differences: loadBalancerSourceRanges, the topology annotations, appProtocol and the
 * load balancer class are not checked, and the status subresource checks only ObjectMeta.
 */
import { duplicate, type FieldError, forbidden, goQuote, invalid, notSupported, required } from "../../../apimachinery/field-errors.js";
import { goPrinted } from "../../../apimachinery/go-printed.js";
import { isJsonObject, type Json, type JsonObject, type KubeObject, obj, str, stringList, stringMap } from "../../../apimachinery/json.js";
import { dns1035Label, dns1123Label, dns1123Subdomain } from "../../../apimachinery/name-validation.js";
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate } from "../../../apimachinery/object-meta.js";
import { parseIPv4 } from "./cluster-ip.js";

const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const AFFINITIES = ["ClientIP", "None"];
const TRAFFIC_POLICIES = ["Cluster", "Local"];
const FAMILIES = ["IPv4", "IPv6"];
const FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];
const PORT_RANGE = "must be between 1 and 65535, inclusive";
const IP_TEXT = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);
const num = (v: Json | undefined): number => (typeof v === "number" ? v : 0);

export const isHeadless = (spec: JsonObject | undefined): boolean => stringList(spec, "clusterIPs")[0] === "None" || str(spec, "clusterIP") === "None";

/** A literal IP address (v4, or a v6 form Node accepts). */
function isIP(text: string): boolean {
  if (parseIPv4(text) !== undefined) return true;
  return /^[0-9a-fA-F:.]+$/.test(text) && text.includes(":") && URL.canParse(`http://[${text}]/`);
}

/** validation.IsValidPortName: an IANA service name. */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** ValidatePortNumOrName. */
function validateTargetPort(value: Json | undefined, path: string): FieldError[] {
  if (typeof value === "number") return value >= 1 && value <= 65535 ? [] : [invalid(path, value, PORT_RANGE)];
  if (typeof value === "string") return portNameErrors(value).map((m) => invalid(path, value, m));
  return [invalid(path, value ?? null, "must be an int or a string")];
}

/** The %#v of the (protocol, port) key a duplicate port is reported with. */
function portKey(protocol: string, port: number): JsonObject {
  return goPrinted(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );
}

function validatePorts(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const ports = objects(spec["ports"]);
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    const name = str(p, "name");
    if (ports.length > 1 && name === "") errs.push(required(`${path}.name`));
    else if (name !== "") {
      for (const m of dns1123Label(name)) errs.push(invalid(`${path}.name`, name, m));
      if (names.has(name)) errs.push(duplicate(`${path}.name`, name));
      else names.add(name);
    }
    const port = num(p["port"]);
    if (port < 1 || port > 65535) errs.push(invalid(`${path}.port`, port, PORT_RANGE));
    const protocol = str(p, "protocol");
    if (protocol === "") errs.push(required(`${path}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(`${path}.protocol`, protocol, PROTOCOLS));
    errs.push(...validateTargetPort(p["targetPort"], `${path}.targetPort`));
  });
  return errs;
}

/** ValidateServiceClusterIPsRelatedFields, for the single-stack IPv4 cluster the emulator is (also run before allocating). */
export function validateClusterIPFields(spec: JsonObject): FieldError[] {
  if (str(spec, "type") === "ExternalName") return [];
  const errs: FieldError[] = [];
  const clusterIP = str(spec, "clusterIP");
  const clusterIPs = stringList(spec, "clusterIPs");
  const policy = spec["ipFamilyPolicy"];
  const families = stringList(spec, "ipFamilies");
  if (clusterIP !== "") {
    if (clusterIPs.length === 0) errs.push(required("spec.clusterIPs"));
    else if (clusterIPs[0] !== clusterIP)
      errs.push(invalid("spec.clusterIPs", goPrinted(`[]string{${clusterIPs.map(goQuote).join(", ")}}`), "first value must match `clusterIP`"));
  } else if (clusterIPs.length > 0) {
    errs.push(invalid("spec.clusterIP", clusterIP, "must be set when clusterIPs is set"));
  }
  if (typeof policy === "string" && !FAMILY_POLICIES.includes(policy)) errs.push(notSupported("spec.ipFamilyPolicy", policy, FAMILY_POLICIES));
  families.forEach((f, i) => {
    if (!FAMILIES.includes(f)) errs.push(notSupported(`spec.ipFamilies[${i}]`, f, FAMILIES));
  });
  if (families.length > 2)
    errs.push(
      invalid(
        "spec.ipFamilies",
        goPrinted(`[]core.IPFamily{${families.map(goQuote).join(", ")}}`),
        "may specify no more than one IP for each IP family, i.e 2 IPs",
      ),
    );
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === "None") return;
    if (ip === "None") errs.push(invalid(`spec.clusterIPs[${i}]`, ip, "must be empty when the first value is 'None'"));
    else if (!isIP(ip)) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, IP_TEXT));
  });
  return errs;
}

function externallyAccessible(spec: JsonObject): boolean {
  const type = str(spec, "type");
  return type === "LoadBalancer" || type === "NodePort" || (type === "ClusterIP" && stringList(spec, "externalIPs").length > 0);
}

/** ValidateService. */
export function validateService(o: KubeObject): FieldError[] {
  const errs = validateObjectMeta(o, true, dns1035Label);
  const spec = obj(o, "spec") ?? {};
  const type = str(spec, "type");
  const headless = isHeadless(spec);
  const ports = objects(spec["ports"]);
  if (ports.length === 0 && !headless && type !== "ExternalName") errs.push(required("spec.ports"));
  if ((type === "NodePort" || type === "LoadBalancer") && headless) {
    errs.push(invalid("spec.clusterIPs[0]", stringList(spec, "clusterIPs")[0] ?? "None", `may not be set to 'None' for ${type} services`));
  }
  if (type === "ExternalName") {
    if (stringList(spec, "clusterIPs").length > 0) errs.push(forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
    if (stringList(spec, "ipFamilies").length > 0) errs.push(forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
    if (spec["ipFamilyPolicy"] !== undefined && spec["ipFamilyPolicy"] !== null)
      errs.push(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
    const cname = str(spec, "externalName").replace(/\.$/, "");
    if (cname === "") errs.push(required("spec.externalName"));
    else for (const m of dns1123Subdomain(cname)) errs.push(invalid("spec.externalName", cname, m));
  }
  errs.push(...validatePorts(spec));
  if (isJsonObject(spec["selector"])) errs.push(...validateLabels(stringMap(spec, "selector"), "spec.selector"));
  const affinity = str(spec, "sessionAffinity");
  if (affinity === "") errs.push(required("spec.sessionAffinity"));
  else if (!AFFINITIES.includes(affinity)) errs.push(notSupported("spec.sessionAffinity", affinity, AFFINITIES));
  if (affinity === "None" && isJsonObject(spec["sessionAffinityConfig"])) {
    errs.push(forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"));
  }
  errs.push(...validateClusterIPFields(spec));
  stringList(spec, "externalIPs").forEach((ip, i) => {
    if (!isIP(ip)) errs.push(invalid(`spec.externalIPs[${i}]`, ip, IP_TEXT));
  });
  if (type === "") errs.push(required("spec.type"));
  else if (!SERVICE_TYPES.includes(type)) errs.push(notSupported("spec.type", type, SERVICE_TYPES));
  if (type === "ClusterIP") {
    ports.forEach((p, i) => {
      if (num(p["nodePort"]) !== 0) errs.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const nodePort = num(p["nodePort"]);
    if (nodePort === 0) return;
    const key = `${str(p, "protocol")}/${nodePort}`;
    if (nodePorts.has(key)) errs.push(duplicate(`spec.ports[${i}].nodePort`, nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${str(p, "protocol")}/${num(p["port"])}`;
    if (seen.has(key)) errs.push(duplicate(`spec.ports[${i}]`, portKey(str(p, "protocol"), num(p["port"]))));
    seen.add(key);
  });
  if (spec["allocateLoadBalancerNodePorts"] !== undefined && type !== "LoadBalancer") {
    errs.push(forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"));
  }
  const etp = str(spec, "externalTrafficPolicy");
  if (!externallyAccessible(spec)) {
    if (etp !== "") errs.push(invalid("spec.externalTrafficPolicy", etp, "may only be set for externally-accessible services"));
  } else if (etp === "") errs.push(required("spec.externalTrafficPolicy"));
  else if (!TRAFFIC_POLICIES.includes(etp)) errs.push(notSupported("spec.externalTrafficPolicy", etp, TRAFFIC_POLICIES));
  const itp = spec["internalTrafficPolicy"];
  if (typeof itp !== "string") {
    if (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP") errs.push(required("spec.internalTrafficPolicy"));
  } else if (!TRAFFIC_POLICIES.includes(itp)) errs.push(notSupported("spec.internalTrafficPolicy", itp, TRAFFIC_POLICIES));
  const td = spec["trafficDistribution"];
  if (typeof td === "string" && td !== "PreferClose") errs.push(notSupported("spec.trafficDistribution", td, ["PreferClose"]));
  return errs;
}

/** validateUpgradeDowngradeClusterIPs, for a single-stack cluster: the primary cluster IP may not change once set. */
function validateClusterIPsUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const spec = obj(o, "spec") ?? {};
  const oldSpec = obj(old, "spec") ?? {};
  if (str(spec, "type") === "ExternalName" || str(oldSpec, "type") === "ExternalName") return [];
  if (isHeadless(spec) && isHeadless(oldSpec)) return [];
  const ips = stringList(spec, "clusterIPs");
  const oldIPs = stringList(oldSpec, "clusterIPs");
  const printed = goPrinted(ips.length ? `[]string{${ips.map(goQuote).join(", ")}}` : "[]string(nil)");
  if (ips.length === oldIPs.length) {
    return oldIPs.flatMap((ip, i) => (ip !== ips[i] ? [invalid(`spec.clusterIPs[${i}]`, printed, "may not change once set")] : []));
  }
  if (ips.length === 0) return [invalid("spec.clusterIPs[0]", printed, "primary clusterIP can not be unset")];
  if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) return [invalid("spec.clusterIPs[0]", printed, "may not change once set")];
  return [];
}

/** ValidateServiceUpdate. */
export function validateServiceUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(o, old), ...validateClusterIPsUpdate(o, old), ...validateService(o)];
}
