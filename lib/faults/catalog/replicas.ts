/**
 * Faults of a server among several of one cluster (issue #17): storage failpoints of the emulator
 * (lib/emulator/storage/failpoint-kv.ts) that suites/replicas.test.ts, writing through one server
 * and reading through another, must catch. test/etcd/replicas-faults.test.ts shows each caught
 * on emulators sharing one etcd.
 */
import type { EmulatorFault } from "../types.js";

export const REPLICA_FAULTS: readonly EmulatorFault[] = [
  {
    name: "consistent-reads-lag",
    mode: "emulator",
    rules: ["doc1.list-rv.most-recent", "doc1.list-rv.nomatch-limit-unset-rv-unset-most-recent"],
    models:
      "a server that answers lists without resourceVersion from a cache seconds behind storage instead of a quorum read (or a cache that waited for storage's current revision), so a write acknowledged by another server is missing",
    reference: "https://github.com/kubernetes/kubernetes/issues/59848",
    failpoints: ["consistent-reads-lag"],
  },
  {
    name: "resource-versions-offset",
    mode: "emulator",
    rules: ["doc1.fields.rv-last-modified", "doc1.watch-rv.other-start-exact", "doc1.list-rv.exact"],
    models:
      "a server that numbers resourceVersions with a counter of its own instead of the storage revision: consistent on its own, but one write has another version on every other server of the cluster",
    severalServers: "test/etcd/replicas-faults.test.ts",
    failpoints: ["resource-versions-offset"],
  },
];
