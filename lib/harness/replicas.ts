/**
 * Other API servers of the target's cluster (`tollgate run --replica URL`): several
 * kube-apiservers behind one etcd, k3s servers on one datastore, several emulators on one etcd.
 * A replica counts only when it answers as the same cluster: a namespace every cluster has
 * (kube-system, else default) has the same uid through it as through the target. A uid is made
 * once, when the object is created in storage, so two clusters never share one.
 */
import { ApiClient } from "./client.js";
import type { Target } from "./target.js";

export class ReplicaError extends Error {}

/** Namespaces every cluster has, in the order they are asked for (a run's identity may not read kube-system). */
const IDENTITY_NAMESPACES = ["kube-system", "default"] as const;

interface Answer {
  code: number;
  uid?: string;
}

async function namespaceUid(client: ApiClient, ns: string): Promise<Answer> {
  const res = await client.raw("GET", `/api/v1/namespaces/${ns}`, { bypassLimits: true });
  const uid = (res.json as { metadata?: { uid?: unknown } } | undefined)?.metadata?.uid;
  return { code: res.code, ...(res.code === 200 && typeof uid === "string" && uid !== "" ? { uid } : {}) };
}

async function withClient<T>(target: Target, fn: (c: ApiClient) => Promise<T>): Promise<T> {
  const client = new ApiClient(target, { suite: "detection" });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/**
 * Confirms that every replica answers as the target's cluster; returns the evidence in a few
 * words. Throws ReplicaError for a replica of another cluster (or one that will not say), and
 * the client's UnreachableError for one that does not answer.
 */
export async function confirmReplicas(target: Target, replicas: readonly Target[]): Promise<string> {
  let found: { ns: string; uid: string } | undefined;
  const asked: string[] = [];
  await withClient(target, async (c) => {
    for (const ns of IDENTITY_NAMESPACES) {
      const a = await namespaceUid(c, ns);
      if (a.uid) {
        found = { ns, uid: a.uid };
        return;
      }
      asked.push(`${ns}: ${a.code}`);
    }
  });
  if (!found) {
    throw new ReplicaError(
      `the target ${target.url} lets the run read neither namespace kube-system nor default (${asked.join(", ")}): its replicas cannot be compared with it`,
    );
  }
  const { ns, uid } = found;
  for (const r of replicas) {
    const a = await withClient(r, (c) => namespaceUid(c, ns));
    if (!a.uid) throw new ReplicaError(`--replica ${r.url}: GET /api/v1/namespaces/${ns} answered ${a.code} (the target ${target.url} answers 200)`);
    if (a.uid !== uid)
      throw new ReplicaError(`--replica ${r.url} is another cluster: namespace ${ns} has uid ${a.uid} there, ${uid} on the target ${target.url}`);
  }
  return `${replicas.length} replica(s) (${replicas.map((r) => r.url).join(", ")}) answer namespace ${ns} with the target's uid ${uid}`;
}
