/**
 * What one suite file holds while it runs: a client for the target, the resource types
 * under the spec settings, and the namespaces (and few cluster-scoped objects) it created. A
 * suite works only inside its own namespaces and removes what it made when it ends, pass or fail.
 */
import { ApiClient, ApiError, type Query } from "./client.js";
import type { KubeObject } from "./objects.js";
import { type CLUSTER_OBJECT_TYPES, type ResourceType, type ResourceTypes, resourcePath, resourceTypes } from "./resources.js";
import type { SpecSettings, Target } from "./target.js";

/** Everything a worker needs to reach the target; plain data so it crosses process boundaries. */
export interface RunSettings {
  target: Target;
  runId: string;
  spec: SpecSettings;
}

export const RUN_LABEL = "tollgate.dev/run-id";
export const SUITE_LABEL = "tollgate.dev/suite";
const NAMESPACE_PREFIX = "tollgate-";
/** The ConfigMap a real cluster's root CA publisher puts in every namespace: content no suite created. */
export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-").toLowerCase();
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Label values allow [A-Za-z0-9._-], at most 63 characters, alphanumeric at both ends. */
export function labelValue(s: string): string {
  const v = s
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(-63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
  return v || "x";
}

export class Session {
  readonly client: ApiClient;
  readonly types: ResourceTypes;
  private readonly namespaces: string[] = [];
  /** Cluster-scoped objects this session created, deleted first at cleanup (a CRD before the namespaces holding its objects). */
  private readonly clusterObjects: { type: ResourceType; name: string }[] = [];

  constructor(
    readonly settings: RunSettings,
    suite?: string,
  ) {
    this.client = new ApiClient(settings.target, suite ? { suite } : {});
    this.types = resourceTypes(settings.spec);
  }

  /** A fresh namespace with a generated `tollgate-` name, labelled with the run and the suite. */
  async createNamespace(suite: string): Promise<string> {
    const ns = await this.client.create<KubeObject>(this.types.namespaces, undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        generateName: NAMESPACE_PREFIX,
        labels: { [RUN_LABEL]: labelValue(this.settings.runId), [SUITE_LABEL]: labelValue(suite) },
      },
    });
    const name = ns.metadata.name;
    if (!name) throw new Error(`the target created a namespace without a name: ${JSON.stringify(ns).slice(0, 200)}`);
    this.namespaces.push(name);
    await this.settle(name);
    return name;
  }

  /** Whether the target's controllers publish ROOT_CA_CONFIGMAP in every namespace (asked once, of `default`). */
  private publishesRootCa: Promise<boolean> | undefined;

  /**
   * Waits (at most 10 s) for the content a real cluster's controllers put in a new namespace,
   * as the Kubernetes e2e framework does, so that a suite's lists and watches see it from the
   * start, never appearing midway.
   */
  private async settle(ns: string): Promise<void> {
    const path = (n: string): string => `${resourcePath(this.types.configmaps, n)}/${ROOT_CA_CONFIGMAP}`;
    this.publishesRootCa ??= this.client.raw("GET", path("default")).then((r) => r.code === 200);
    if (!(await this.publishesRootCa)) return;
    const deadline = Date.now() + 10_000;
    while ((await this.client.raw("GET", path(ns))).code !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  /**
   * Creates a cluster-scoped object (a CRD, a webhook configuration) labelled with the run and the
   * suite, and remembers it for cleanup. With `dryRun` nothing is stored and nothing remembered.
   */
  async createClusterObject<T extends KubeObject = KubeObject>(type: ResourceType, suite: string, body: KubeObject, query?: Query): Promise<T> {
    const labels = { ...body.metadata.labels, [RUN_LABEL]: labelValue(this.settings.runId), [SUITE_LABEL]: labelValue(suite) };
    const made = await this.client.create<T>(type, undefined, { ...body, metadata: { ...body.metadata, labels } }, query);
    if (query?.["dryRun"] === undefined && made.metadata.name) this.clusterObjects.push({ type, name: made.metadata.name });
    return made;
  }

  /** Deletes what this session created: cluster-scoped objects, then namespaces; anything already gone is fine. */
  async cleanup(): Promise<void> {
    const objects = this.clusterObjects.splice(0, this.clusterObjects.length).reverse();
    for (const o of objects) await deleteIgnoringMissing(this.client, o.type, o.name);
    const names = this.namespaces.splice(0, this.namespaces.length);
    await Promise.all(names.map((n) => deleteIgnoringMissing(this.client, this.types.namespaces, n)));
    await this.client.close();
  }
}

async function deleteIgnoringMissing(client: ApiClient, type: ResourceType, name: string): Promise<void> {
  try {
    await client.delete(type, undefined, name);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return;
    throw e;
  }
}

/** An object a run left on the target, found by the run label. */
export interface Leftover {
  /** The resource: "namespaces", "validatingwebhookconfigurations", ... */
  resource: string;
  name: string;
  /** The run it belongs to (its label's value). */
  runId: string;
  /** Already being deleted (a namespace still Terminating): nothing to do but wait. */
  deleting: boolean;
}

export interface CleanupResult {
  removed: Leftover[];
  /** Objects that were already being deleted. */
  deleting: Leftover[];
  failed: { leftover: Leftover; message: string }[];
}

/**
 * The order leftovers go in: webhook configurations first (a failurePolicy=Fail webhook whose
 * server died with the run would refuse the deletions after it), then CRDs (their custom
 * resources go with them), then namespaces (their contents go with them).
 */
const CLEANUP_ORDER = [
  "validatingWebhookConfigurations",
  "mutatingWebhookConfigurations",
  "customResourceDefinitions",
] as const satisfies readonly (typeof CLUSTER_OBJECT_TYPES)[number][];

/**
 * Everything labelled with this run id (with every tollgate run's id when `runId` is undefined),
 * in the order it is to be deleted. Touches nothing; a type the target does not serve (404) or
 * lets us not list (403) holds none of ours.
 */
export async function findLeftovers(client: ApiClient, spec: SpecSettings, runId?: string): Promise<Leftover[]> {
  const types = resourceTypes(spec);
  const labelSelector = runId === undefined ? RUN_LABEL : `${RUN_LABEL}=${labelValue(runId)}`;
  const out: Leftover[] = [];
  const take = (type: ResourceType, items: KubeObject[], keep: (o: KubeObject) => boolean): void => {
    for (const o of items) {
      if (!o.metadata.name || !keep(o)) continue;
      out.push({
        resource: type.resource,
        name: o.metadata.name,
        runId: o.metadata.labels?.[RUN_LABEL] ?? "",
        deleting: o.metadata.deletionTimestamp !== undefined,
      });
    }
  };
  for (const key of CLEANUP_ORDER) {
    const type = types[key];
    const res = await client.raw("GET", resourcePath(type), { query: { labelSelector } });
    if (res.code === 404 || res.code === 403) continue;
    if (res.code !== 200) throw new ApiError("GET", resourcePath(type), res.code, undefined, res.text);
    take(type, (res.json as { items?: KubeObject[] }).items ?? [], () => true);
  }
  const namespaces = await client.list(types.namespaces, undefined, { labelSelector });
  take(types.namespaces, namespaces.items, (n) => n.metadata.name?.startsWith(NAMESPACE_PREFIX) === true);
  return out;
}

/**
 * Deletes leftovers in the order given (findLeftovers' order); anything already gone is fine.
 * An object that cannot be deleted is reported, the others still go; a target that stops
 * answering ends the cleanup (UnreachableError).
 */
export async function deleteLeftovers(client: ApiClient, spec: SpecSettings, leftovers: readonly Leftover[]): Promise<CleanupResult> {
  const types = Object.values(resourceTypes(spec));
  const result: CleanupResult = { removed: [], deleting: leftovers.filter((l) => l.deleting), failed: [] };
  /** Undefined when removed, else why not. */
  const remove = async (l: Leftover): Promise<string | undefined> => {
    const type = types.find((t) => t.resource === l.resource && !t.namespaced);
    if (!type) return `no such cluster-scoped resource ${l.resource}`;
    try {
      await deleteIgnoringMissing(client, type, l.name);
      return undefined;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return e.message;
    }
  };
  const pending = leftovers.filter((l) => !l.deleting);
  const clusterScoped = pending.filter((x) => x.resource !== "namespaces");
  const namespaces = pending.filter((x) => x.resource === "namespaces");
  const outcomes: (string | undefined)[] = [];
  for (const l of clusterScoped) outcomes.push(await remove(l));
  outcomes.push(...(await Promise.all(namespaces.map(remove))));
  [...clusterScoped, ...namespaces].forEach((l, i) => {
    const why = outcomes[i];
    if (why === undefined) result.removed.push(l);
    else result.failed.push({ leftover: l, message: why });
  });
  return result;
}

/**
 * Run-wide safety net: deletes every webhook configuration, CRD and namespace labelled with
 * this run id (those of suites that crashed or were stopped before their own cleanup). Touches
 * nothing else.
 */
export async function deleteRunLeftovers(settings: RunSettings): Promise<CleanupResult> {
  const client = new ApiClient(settings.target);
  try {
    return await deleteLeftovers(client, settings.spec, await findLeftovers(client, settings.spec, settings.runId));
  } finally {
    await client.close();
  }
}
