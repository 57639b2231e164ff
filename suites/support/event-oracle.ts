/**
 * The suite's own model of which events.k8s.io/v1 Events a real 1.35 server accepts on
 * create (wire-facts §7), written independently of the emulator so that agreement means
 * something. Given an Event in its JSON form and the namespace it is posted to, it returns
 * the field paths the server must name in its 422 causes (internal core names:
 * involvedObject, message, source, …), with the rule each comes from; empty means valid.
 */
export interface Violation {
  field: string;
  rule: string;
}

type Obj = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === "string" ? v : "");
const present = (v: unknown): boolean => v !== undefined && v !== null;
const bytes = (s: string): number => new TextEncoder().encode(s).length;
const record = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

const DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS_SUBDOMAIN = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`);
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

export function isDnsSubdomain(s: string): boolean {
  return s.length > 0 && s.length <= 253 && DNS_SUBDOMAIN.test(s);
}

/** `[prefix/]name`: prefix a DNS subdomain, name at most 63 characters of the name-part form. */
export function isQualifiedName(s: string): boolean {
  const parts = s.split("/");
  if (parts.length > 2) return false;
  const name = parts.at(-1) ?? "";
  if (parts.length === 2 && !isDnsSubdomain(parts[0] ?? "")) return false;
  return name.length > 0 && name.length <= 63 && NAME_PART.test(name);
}

export function expectedCreateViolations(event: Obj, namespace: string): Violation[] {
  const out: Violation[] = [];
  const add = (field: string, rule: string): void => {
    out.push({ field, rule });
  };
  const meta = record(event.metadata);
  const regardingNs = text(record(event.regarding).namespace);
  const timed = present(event.eventTime);

  if (!timed) {
    add("eventTime", "doc2.event.event-time-required");
    const ok = regardingNs === "" ? namespace === "" || namespace === "default" : regardingNs === namespace;
    if (!ok) add("involvedObject.namespace", regardingNs === "" ? "doc2.event.namespace-l1" : "doc2.event.namespace-l2");
  } else {
    if (regardingNs === "" && namespace !== "default" && namespace !== "kube-system") add("involvedObject.namespace", "doc2.event.namespace-l3");
    const controller = text(event.reportingController);
    if (controller === "") add("reportingController", "doc2.event.reporting-controller-required");
    else if (!isQualifiedName(controller)) add("reportingController", "doc2.event.reporting-controller-form");
    const limited: [string, string, number, string, string][] = [
      ["reportingInstance", "reportingInstance", 128, "doc2.event.reporting-instance-required", "doc2.event.reporting-instance-max-128"],
      ["action", "action", 128, "doc2.event.action-required", "doc2.event.action-max-128"],
      ["reason", "reason", 128, "doc2.event.reason-required", "doc2.event.reason-max-128"],
    ];
    for (const [key, field, max, requiredRule, maxRule] of limited) {
      const v = text(event[key]);
      if (v === "") add(field, requiredRule);
      else if (bytes(v) > max) add(field, maxRule);
    }
    if (bytes(text(event.note)) > 1024) add("message", "doc2.event.note-max-1kb");
  }

  const name = text(meta.name);
  if (!isDnsSubdomain(name)) add("metadata.name", "doc2.event.name-dns-subdomain");

  const series = event.series;
  if (present(series)) {
    const s = record(series);
    if (typeof s.count !== "number" || s.count < 2) add("series.count", "doc2.event.series-count-min-2");
    if (!present(s.lastObservedTime)) add("series.lastObservedTime", "doc2.event.series-last-observed-required");
  }
  const type = text(event.type);
  if (type !== "Normal" && type !== "Warning") add("type", type === "" ? "doc2.event.type-required" : "doc2.event.type-normal-warning");
  if (present(event.deprecatedFirstTimestamp)) add("firstTimestamp", "doc2.event.deprecated-first-timestamp");
  if (present(event.deprecatedLastTimestamp)) add("lastTimestamp", "doc2.event.deprecated-last-timestamp");
  if (typeof event.deprecatedCount === "number" && event.deprecatedCount !== 0) add("count", "doc2.event.deprecated-count");
  const source = record(event.deprecatedSource);
  if (text(source.component) !== "" || text(source.host) !== "") add("source", "doc2.event.deprecated-source");
  return out;
}

/** The distinct field paths, sorted, for comparing with a Status's causes. */
export function violatedFields(vs: readonly Violation[]): string[] {
  return [...new Set(vs.map((v) => v.field))].sort();
}
