/**
 * What one suite file holds while it runs: a client for the target, the resource types
 * under the spec settings, and the namespaces (and few cluster-scoped objects) it created. A
 * suite works only inside its own namespaces and removes what it made when it ends, pass or fail.
 */
import { ApiClient, ApiError, type Query } from "./client.js";
import type { KubeObject } from "./objects.js";
import { CLUSTER_OBJECT_TYPES, resourcePath, resourceTypes, type ResourceType, type ResourceTypes } from "./resources.js";
import type { SpecSettings, Target } from "./target.js";

/** Everything a worker needs to reach the target; plain data so it crosses process boundaries. */
export interface RunSettings {
  target: Target;
  runId: string;
  spec: SpecSettings;
}

export const RUN_LABEL = "tollgate.dev/run-id";
export const SUITE_LABEL = "tollgate.dev/suite";
export const NAMESPACE_PREFIX = "tollgate-";

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-").toLowerCase();
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Label values allow [A-Za-z0-9._-], at most 63 characters, alphanumeric at both ends. */
export function labelValue(s: string): string {
  const v = s.replace(/[^A-Za-z0-9._-]+/g, "-").slice(-63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
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
    return name;
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

/**
 * Run-wide safety net: deletes every namespace, CRD and webhook configuration labelled with
 * this run id (those of suites that crashed before their own cleanup). Touches nothing else.
 */
export async function deleteRunLeftovers(settings: RunSettings): Promise<number> {
  const client = new ApiClient(settings.target);
  const types = resourceTypes(settings.spec);
  try {
    const list = await client.list(types.namespaces, undefined, {
      labelSelector: `${RUN_LABEL}=${labelValue(settings.runId)}`,
    });
    const live = list.items.filter((n) => !n.metadata.deletionTimestamp && n.metadata.name?.startsWith(NAMESPACE_PREFIX));
    let objects = 0;
    for (const key of CLUSTER_OBJECT_TYPES) {
      const type = types[key];
      // A target that does not serve the type (404) or lets us not list it (403) holds none of ours.
      const res = await client.raw("GET", resourcePath(type), { query: { labelSelector: `${RUN_LABEL}=${labelValue(settings.runId)}` } });
      if (res.code !== 200) continue;
      const items = ((res.json as { items?: KubeObject[] }).items ?? []).filter((o) => !o.metadata.deletionTimestamp && o.metadata.name);
      for (const o of items) await deleteIgnoringMissing(client, type, o.metadata.name as string);
      objects += items.length;
    }
    await Promise.all(live.map((n) => deleteIgnoringMissing(client, types.namespaces, n.metadata.name as string)));
    return live.length + objects;
  } finally {
    await client.close();
  }
}
