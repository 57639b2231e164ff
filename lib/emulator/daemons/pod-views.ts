/**
 * What the emulated node agent's endpoints say of its pods, in the shapes a real 1.35 node
 * agent answers: /pods (a PodList of the pods it manages, all running and ready), /runningpods/
 * (the pods as the runtime lists them: name, namespace, uid and the running containers'
 * names and images, nothing else) and /stats/summary (the node it registered and one entry per pod).
 * The figures of /stats/summary (CPU, memory) are not emulated and are left out.
 */
import type { StaticPod } from "./static-pods.js";

/** The node agent's pods, its node name, and the faults that change what the endpoints say. */
export interface NodePods {
  readonly nodeName: string;
  readonly pods: readonly StaticPod[];
  /** RFC 3339 time the pods were seen (started). */
  readonly startedAt: string;
  /** Test-only: a pod of containers not started by the node agent shows in /runningpods/. */
  readonly foreignContainer?: boolean;
  /** Test-only: /stats/summary names another node than the pods are bound to. */
  readonly wrongNodeName?: boolean;
  /** Test-only: the first container has stopped, yet /pods still reports it running and ready. */
  readonly stoppedContainer?: boolean;
  /** Test-only: /pods leaves out the kubernetes.io/config.source annotation. */
  readonly sourceMissing?: boolean;
}

const CONFIG_SOURCE = "kubernetes.io/config.source";
const CONFIG_HASH = "kubernetes.io/config.hash";
const CONFIG_SEEN = "kubernetes.io/config.seen";

const list = (items: unknown[]): unknown => ({ kind: "PodList", apiVersion: "v1", metadata: {}, items });

function apiPod(p: StaticPod, np: NodePods): unknown {
  const at = np.startedAt;
  const tolerations = Array.isArray(p.spec["tolerations"]) ? [...(p.spec["tolerations"] as unknown[])] : [];
  if (p.source === "file") tolerations.push({ operator: "Exists", effect: "NoExecute" });
  const condition = (type: string): unknown => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: at });
  return {
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid: p.uid,
      creationTimestamp: null,
      ...(Object.keys(p.labels).length > 0 ? { labels: p.labels } : {}),
      annotations: { [CONFIG_HASH]: p.uid, [CONFIG_SEEN]: at, ...(np.sourceMissing ? {} : { [CONFIG_SOURCE]: p.source }) },
    },
    spec: { ...p.spec, nodeName: np.nodeName, ...(tolerations.length > 0 ? { tolerations } : {}) },
    status: {
      phase: "Running",
      conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map(condition),
      startTime: at,
      containerStatuses: p.containers.map((c) => ({
        name: c.name,
        state: { running: { startedAt: at } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: c.image,
        imageID: "",
        containerID: `containerd://${c.id}`,
        started: true,
      })),
    },
  };
}

/** /pods: every pod the node agent manages. */
export function podListOf(np: NodePods): unknown {
  return list(np.pods.map((p) => apiPod(p, np)));
}

/** /runningpods/: the pods with running containers, as the runtime reports them. */
export function runningPodsOf(np: NodePods): unknown {
  const items: unknown[] = [];
  np.pods.forEach((p, i) => {
    const containers = p.containers.filter((_, j) => !(np.stoppedContainer && i === 0 && j === 0));
    if (containers.length === 0) return;
    items.push({
      metadata: { name: p.name, namespace: p.namespace, uid: p.uid, creationTimestamp: null },
      spec: { containers: containers.map((c) => ({ name: c.name, image: c.image, resources: {} })) },
      status: {},
    });
  });
  if (np.foreignContainer) {
    // A container someone started on the node by hand: the real node agent never lists it.
    items.push({
      metadata: { name: "hand-started", namespace: "default", uid: "00000000-0000-0000-0000-00000000f0e1", creationTimestamp: null },
      spec: { containers: [{ name: "hand-started", image: "docker.io/library/busybox:latest", resources: {} }] },
      status: {},
    });
  }
  return list(items);
}

/** /stats/summary: the node it registered and each pod's reference and containers. */
export function statsSummaryOf(np: NodePods): unknown {
  return {
    node: {
      nodeName: np.wrongNodeName ? `${np.nodeName}-elsewhere` : np.nodeName,
      systemContainers: [],
      startTime: np.startedAt,
    },
    pods: np.pods.map((p) => ({
      podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
      startTime: np.startedAt,
      containers: p.containers.map((c) => ({ name: c.name, startTime: np.startedAt })),
    })),
  };
}
