/**
 * The Service printer (k/k pkg/printers/internalversion printService): Name, Type, Cluster-IP
 * (the first of clusterIPs, `<none>` without), External-IP (by type: the externalIPs for
 * ClusterIP and NodePort, the load balancer's ingress then the externalIPs for LoadBalancer, or `<pending>`, the
 * externalName for ExternalName), Port(s) (`port[:nodePort]/protocol`, comma-joined), Age,
 * and Selector (priority 1: `k=v` sorted, `<none>` when empty). The server prints wide.
 */
import { isJsonObject, type Json, type JsonObject, obj, str, stringList, stringMap } from "../../../apimachinery/json.js";
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter, timestampSince } from "../../generic/table.js";

// The swagger docs of the ServiceSpec fields, as in the 1.35 OpenAPI.
const SPEC_TYPE =
  'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types';
const SPEC_CLUSTER_IP =
  'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies';
const SPEC_EXTERNAL_IPS =
  "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.";
const SPEC_PORTS =
  "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies";
const SPEC_SELECTOR =
  "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/";

const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

/** loadBalancerStatusStringer: the ingress IPs or hostnames, comma-joined (the server prints wide: no 16-character cut). */
function loadBalancerIngress(o: JsonObject): string {
  const ingress = objects(obj(obj(o, "status"), "loadBalancer")?.["ingress"]);
  return ingress
    .map((i) => str(i, "ip") || str(i, "hostname"))
    .filter((s) => s !== "")
    .join(",");
}

function externalIP(o: JsonObject): string {
  const spec = obj(o, "spec");
  const externalIPs = stringList(spec, "externalIPs");
  switch (str(spec, "type")) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = loadBalancerIngress(o);
      const all = [...(lb ? [lb] : []), ...externalIPs];
      return all.length ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(spec, "externalName");
    default:
      return "<unknown>";
  }
}

/** makePortString. */
function portString(o: JsonObject): string {
  const ports = objects(obj(o, "spec")?.["ports"]).map((p) => {
    const port = typeof p["port"] === "number" ? p["port"] : 0;
    const protocol = str(p, "protocol");
    const nodePort = typeof p["nodePort"] === "number" ? p["nodePort"] : 0;
    return nodePort > 0 ? `${port}:${nodePort}/${protocol}` : `${port}/${protocol}`;
  });
  return ports.length ? ports.join(",") : "<none>";
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
export function formatLabels(labels: Record<string, string>): string {
  const keys = Object.keys(labels).sort();
  return keys.length ? keys.map((k) => `${k}=${labels[k]}`).join(",") : "<none>";
}

export const SERVICE_PRINTER: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column("Type", SPEC_TYPE),
    column("Cluster-IP", SPEC_CLUSTER_IP),
    column("External-IP", SPEC_EXTERNAL_IPS),
    column("Port(s)", SPEC_PORTS),
    AGE_COLUMN,
    column("Selector", SPEC_SELECTOR, { priority: 1 }),
  ],
  cells: (o, nowMs) => [
    str(o.metadata, "name"),
    str(obj(o, "spec"), "type"),
    stringList(obj(o, "spec"), "clusterIPs")[0] ?? "<none>",
    externalIP(o),
    portString(o),
    timestampSince(o.metadata["creationTimestamp"], nowMs),
    formatLabels(stringMap(obj(o, "spec"), "selector")),
  ],
  emptyRows: "array",
};
