/**
 * The Service IP and NodePort pools of a 1.35 server, as plain functions over the stored
 * Services (k/k pkg/registry/core/service/ipallocator, portallocator, storage/alloc.go): an
 * address or port is taken while a stored Service holds it, so a delete releases it with no
 * bookkeeping of its own.
 *
 * The service range is kubeadm's 10.96.0.0/12 (a bare kube-apiserver defaults to
 * 10.0.0.0/24). Its first address, 10.96.0.1, is the `kubernetes` Service's. A dynamic
 * allocation picks a random free address of the upper part of the range, past the first 256
 * (KEP-3070's reserved block for static addresses), and falls back to the lower part; the
 * network and broadcast addresses are never given out. IPv4 only: the emulated cluster is
 * single-stack.
 *
 * Known difference: two creates whose validating webhooks are awaited at the same time may be
 * given the same random address (a real server holds it in an IPAddress object at once).
 */
import { randomInt } from "node:crypto";
import { type FieldError, goQuote, invalid } from "../../../apimachinery/field-errors.js";
import { goPrinted } from "../../../apimachinery/go-printed.js";
import { isJsonObject, type JsonObject, type KubeObject, obj, str, stringList } from "../../../apimachinery/json.js";

export const SERVICE_CIDR = "10.96.0.0/12";
export const NODE_PORT_RANGE = { base: 30000, size: 2768 } as const;
const RESERVED_BLOCK_MAX = 256;

/** A dotted IPv4 address as a number, or undefined when it is not one. */
export function parseIPv4(text: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

export function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}

export interface ServiceRange {
  readonly cidr: string;
  /** First and last address given out (network and broadcast addresses excluded). */
  readonly first: number;
  readonly last: number;
  /** Addresses at first..first+offset-1 are left for static requests first. */
  readonly offset: number;
}

/** A service range the emulator cannot serve (kube-apiserver refuses to start with it). */
export class ServiceRangeError extends Error {}

/**
 * The pool of an IPv4 CIDR. As kube-apiserver's flag check: no more than a /12 (its words for
 * a larger one); and at least a /30 here, so the `kubernetes` Service has an address.
 */
export function serviceRange(cidr: string = SERVICE_CIDR): ServiceRange {
  const [addr = "", bitsText = "", extra] = cidr.split("/");
  const base = parseIPv4(addr);
  const bits = /^\d{1,2}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
  if (base === undefined || extra !== undefined || !(bits >= 0 && bits <= 32))
    throw new ServiceRangeError(`invalid CIDR address: ${cidr} (an IPv4 CIDR such as ${SERVICE_CIDR})`);
  if (bits < 12) throw new ServiceRangeError("specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12");
  if (bits > 30) throw new ServiceRangeError(`specified --service-cluster-ip-range ${cidr} has no address for the kubernetes Service; the mask must be <= 30`);
  const size = 2 ** (32 - bits);
  const network = base - (base % size);
  // calculateRangeOffset: min(max(16, size/16), 256) on the CIDR's size, none below 16 addresses.
  const offset = size < 16 ? 0 : Math.min(Math.max(16, Math.floor(size / 16)), RESERVED_BLOCK_MAX);
  return { cidr: `${formatIPv4(network)}/${bits}`, first: network + 1, last: network + size - 2, offset };
}

/** The cluster IPs the stored Services hold (all namespaces). */
function takenAddresses(stored: readonly KubeObject[], except?: KubeObject): Set<string> {
  const taken = new Set<string>();
  for (const s of stored) {
    if (except && str(s.metadata, "namespace") === str(except.metadata, "namespace") && str(s.metadata, "name") === str(except.metadata, "name")) continue;
    for (const ip of stringList(obj(s, "spec"), "clusterIPs")) taken.add(ip);
    const single = str(obj(s, "spec"), "clusterIP");
    if (single) taken.add(single);
  }
  return taken;
}

/** Go's %#v of the clusterIPs slice, the bad value of the allocation errors. */
function clusterIPsValue(spec: JsonObject): JsonObject {
  const ips = stringList(spec, "clusterIPs");
  return goPrinted(ips.length ? `[]string{${ips.map(goQuote).join(", ")}}` : "[]string(nil)");
}

/**
 * Allocates `requested` (or any free address when "") for a Service: the address, or the field
 * error a real server gives (`failed to allocate IP …: <allocator error>`).
 */
export function allocateAddress(spec: JsonObject, requested: string, stored: readonly KubeObject[], range: ServiceRange): string | FieldError {
  const taken = takenAddresses(stored);
  if (requested === "") {
    const pick = (lo: number, hi: number): string | undefined => {
      if (hi < lo) return undefined;
      const count = hi - lo + 1;
      const start = randomInt(count);
      for (let i = 0; i < count; i++) {
        const ip = formatIPv4(lo + ((start + i) % count));
        if (!taken.has(ip)) return ip;
      }
      return undefined;
    };
    const ip = pick(range.first + range.offset, range.last) ?? pick(range.first, Math.min(range.first + range.offset - 1, range.last));
    // A full range is an internal error on a real server; a 422 names the cause here.
    return ip ?? invalid("spec.clusterIPs", clusterIPsValue(spec), "failed to allocate a serviceIP: range is full");
  }
  const n = parseIPv4(requested);
  const fail = (why: string): FieldError => invalid("spec.clusterIPs", clusterIPsValue(spec), `failed to allocate IP ${requested}: ${why}`);
  const network = range.first - 1;
  // The MetaAllocator finds no range holding the address: ErrMismatchedNetwork.
  if (n === undefined || n < network || n > range.last + 1) return fail("the provided network does not match the current range");
  // Inside the range's prefix but its network or broadcast address: ErrNotInRange.
  if (n < range.first || n > range.last) return fail(`provided IP ${requested} is not in the valid range`);
  if (taken.has(requested)) return fail("provided IP is already allocated");
  return requested;
}

/** The node ports the stored Services hold (each service port's and the health check's), except `self`'s. */
function takenNodePorts(stored: readonly KubeObject[], self: KubeObject): Set<number> {
  const taken = new Set<number>();
  for (const s of stored) {
    if (str(s.metadata, "namespace") === str(self.metadata, "namespace") && str(s.metadata, "name") === str(self.metadata, "name")) continue;
    const spec = obj(s, "spec");
    const ports = spec?.["ports"];
    if (Array.isArray(ports)) for (const p of ports) if (isJsonObject(p) && typeof p["nodePort"] === "number" && p["nodePort"] > 0) taken.add(p["nodePort"]);
    const hc = spec?.["healthCheckNodePort"];
    if (typeof hc === "number" && hc > 0) taken.add(hc);
  }
  return taken;
}

const needsNodePorts = (type: string): boolean => type === "NodePort" || type === "LoadBalancer";

/**
 * NodePorts for a NodePort or LoadBalancer Service (initNodePorts): a requested port must be in
 * range and free, an unset one gets a free random port; ports with the same number share one.
 * LoadBalancer with allocateLoadBalancerNodePorts false allocates none but keeps requested ones.
 */
export function allocateNodePorts(service: KubeObject, stored: readonly KubeObject[], old?: KubeObject): FieldError[] {
  const spec = obj(service, "spec");
  if (!spec || !needsNodePorts(str(spec, "type"))) return [];
  const ports = Array.isArray(spec["ports"]) ? spec["ports"] : [];
  const taken = takenNodePorts(stored, service);
  const held = new Set<number>();
  // Ports this Service already held stay its own on an update.
  const oldPorts = old ? obj(old, "spec")?.["ports"] : undefined;
  if (Array.isArray(oldPorts)) for (const p of oldPorts) if (isJsonObject(p) && typeof p["nodePort"] === "number") held.add(p["nodePort"]);
  const allocate = spec["allocateLoadBalancerNodePorts"] !== false || str(spec, "type") !== "LoadBalancer";
  const byPort = new Map<number, number>();
  const errors: FieldError[] = [];
  const { base, size } = NODE_PORT_RANGE;
  ports.forEach((p, i) => {
    if (!isJsonObject(p)) return;
    const port = typeof p["port"] === "number" ? p["port"] : 0;
    const requested = typeof p["nodePort"] === "number" ? p["nodePort"] : 0;
    if (requested !== 0) {
      if (held.has(requested) || byPort.get(port) === requested) return;
      if (requested < base || requested >= base + size) {
        errors.push(
          invalid(`spec.ports[${i}].nodePort`, requested, `provided port is not in the valid range. The range of valid ports is ${base}-${base + size - 1}`),
        );
      } else if (taken.has(requested)) {
        errors.push(invalid(`spec.ports[${i}].nodePort`, requested, "provided port is already allocated"));
      } else {
        taken.add(requested);
        byPort.set(port, requested);
      }
      return;
    }
    if (!allocate) return;
    const shared = byPort.get(port);
    if (shared !== undefined) {
      p["nodePort"] = shared;
      return;
    }
    const start = randomInt(size);
    for (let k = 0; k < size; k++) {
      const candidate = base + ((start + k) % size);
      if (taken.has(candidate)) continue;
      taken.add(candidate);
      byPort.set(port, candidate);
      p["nodePort"] = candidate;
      return;
    }
    errors.push(invalid(`spec.ports[${i}].nodePort`, 0, "failed to allocate a nodePort: range is full"));
  });
  return errors;
}
