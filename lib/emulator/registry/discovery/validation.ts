/**
 * EndpointSlice validation, the rules of ValidateEndpointSlice and ValidateEndpointSliceUpdate
 * in 1.35 (k/k pkg/apis/discovery/validation) that matter to clients: ObjectMeta with DNS
 * subdomain names, the address type (supported values, immutable), each endpoint's addresses
 * (1 to 100, of the slice's type) and hostname, each port's name (DNS label, unique), protocol
 * and number, and the list limits (1000 endpoints, 100 ports).
 *
 * Known differences: nodeName, zone, hints and appProtocol are not checked.
 */
import { duplicate, type FieldError, invalid, notSupported, required, tooMany } from "../../apimachinery/field-errors.js";
import { isJsonObject, type Json, type JsonObject, type KubeObject, str, stringList } from "../../apimachinery/json.js";
import { dns1123Label, dns1123Subdomain } from "../../apimachinery/name-validation.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "../../apimachinery/object-meta.js";

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;

const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

function validateAddress(address: string, addressType: string, path: string): FieldError[] {
  if (addressType === "IPv4") {
    return /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(address) ? [] : [invalid(path, address, "must be a valid IPv4 address")];
  }
  if (addressType === "IPv6") {
    return address.includes(":") && URL.canParse(`http://[${address}]/`) ? [] : [invalid(path, address, "must be a valid IPv6 address")];
  }
  if (addressType === "FQDN") return dns1123Subdomain(address).map((m) => invalid(path, address, m));
  return [];
}

export function validateEndpointSlice(o: KubeObject): FieldError[] {
  const errs = validateObjectMeta(o, true, dns1123Subdomain);
  const addressType = str(o, "addressType");
  if (addressType === "") errs.push(required("addressType"));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(notSupported("addressType", addressType, ADDRESS_TYPES));
  const endpoints = objects(o["endpoints"]);
  if (endpoints.length > MAX_ENDPOINTS) errs.push(tooMany("endpoints", endpoints.length, MAX_ENDPOINTS));
  endpoints.forEach((e, i) => {
    const path = `endpoints[${i}]`;
    const addresses = stringList(e, "addresses");
    if (addresses.length === 0) errs.push(required(`${path}.addresses`, "must contain at least 1 address"));
    else if (addresses.length > MAX_ADDRESSES) errs.push(tooMany(`${path}.addresses`, addresses.length, MAX_ADDRESSES));
    addresses.forEach((a, j) => {
      errs.push(...validateAddress(a, addressType, `${path}.addresses[${j}]`));
    });
    if (typeof e["hostname"] === "string") for (const m of dns1123Label(e["hostname"])) errs.push(invalid(`${path}.hostname`, e["hostname"], m));
  });
  const ports = objects(o["ports"]);
  if (ports.length > MAX_PORTS) errs.push(tooMany("ports", ports.length, MAX_PORTS));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const path = `ports[${i}]`;
    const name = str(p, "name");
    if (name !== "") for (const m of dns1123Label(name)) errs.push(invalid(`${path}.name`, name, m));
    if (names.has(name)) errs.push(duplicate(`${path}.name`, name));
    names.add(name);
    const protocol = str(p, "protocol");
    if (protocol === "") errs.push(required(`${path}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(`${path}.protocol`, protocol, PROTOCOLS));
    const port = p["port"];
    if (typeof port === "number" && (port < 1 || port > 65535)) errs.push(invalid(`${path}.port`, port, "must be between 1 and 65535, inclusive"));
  });
  return errs;
}

export function validateEndpointSliceUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = [...validateObjectMetaUpdate(o, old), ...validateEndpointSlice(o)];
  if (str(o, "addressType") !== str(old, "addressType")) errs.push(invalid("addressType", str(o, "addressType"), "field is immutable"));
  return errs;
}
