/**
 * Micro-benchmark of lib/wire's protobuf encoder (issue #18): encodes N copies of a typical
 * events.k8s.io Event, core v1 Event and ConfigMap (each copy a distinct object with its own
 * name and times, as a list holds them) and reports µs per object, with JSON.stringify of the
 * same objects as the baseline (ratio = JSON µs / protobuf µs; 1 = as fast as JSON).
 * "message" is the list writer's per-item work (encodeMessage: no envelope), "object" the
 * whole enveloped body (encodeObject). Run with `node --cpu-prof --import tsx` to profile.
 *
 *   npx tsx scripts/bench-protobuf.ts [--count 20000] [--rounds 5]
 */
import { parseArgs } from "node:util";
import { encodeMessage, entryFor } from "../lib/wire/protobuf/codec.js";
import { encodeObject } from "../lib/wire/protobuf/index.js";

const { values } = parseArgs({ options: { count: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" } } });
const COUNT = Number(values.count);
const ROUNDS = Number(values.rounds);

type Obj = Record<string, unknown>;
const NOTE = "Benchmark event: the quick brown fox jumps over the lazy dog. ".repeat(9).slice(0, 540);

function managedFields(i: number, manager: string, fields: Obj): Obj[] {
  return [{ manager, operation: "Update", apiVersion: "v1", time: stamp(i), fieldsType: "FieldsV1", fieldsV1: fields }];
}

function stamp(i: number): string {
  return new Date(Date.UTC(2026, 10, 26, 12, 0, 0) + i * 1000).toISOString().replace(/\.\d+Z$/, "Z");
}

function micro(i: number): string {
  return new Date(Date.UTC(2026, 10, 26, 12, 0, 0) + i * 1000).toISOString().replace(/\.(\d+)Z$/, `.$1${String(i % 1000).padStart(3, "0")}Z`);
}

function meta(i: number, namespace: string, kind: string): Obj {
  const id = String(i).padStart(6, "0");
  return {
    name: `bench-${id}`,
    namespace,
    uid: `0b6c9a1e-5d1f-4c8e-9b7a-${String(i).padStart(12, "0")}`,
    resourceVersion: String(1000 + i),
    creationTimestamp: stamp(i),
    labels: { app: "tollgate-bench", shard: String(i % 16) },
    managedFields: managedFields(i, "bench", { "f:metadata": { "f:labels": { ".": {}, "f:app": {}, "f:shard": {} } }, [`f:${kind}`]: {} }),
  };
}

const makers: Record<string, (i: number) => Obj> = {
  "events.k8s.io/v1 Event": (i) => ({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: meta(i, `bench-${i % 10}`, "note"),
    eventTime: micro(i),
    reportingController: "tollgate.dev/bench",
    reportingInstance: "bench-instance-1",
    action: "Measure",
    reason: "Benchmark",
    regarding: { kind: "ConfigMap", namespace: `bench-${i % 10}`, name: `subject-${i}`, apiVersion: "v1" },
    note: `${NOTE} #${i}`,
    type: "Normal",
  }),
  "v1 Event": (i) => ({
    apiVersion: "v1",
    kind: "Event",
    metadata: meta(i, `bench-${i % 10}`, "message"),
    involvedObject: {
      kind: "Pod",
      namespace: `bench-${i % 10}`,
      name: `pod-${i}`,
      uid: "3c1f",
      apiVersion: "v1",
      resourceVersion: "12",
      fieldPath: "spec.containers{app}",
    },
    reason: "Pulled",
    message: `${NOTE} #${i}`,
    source: { component: "kubelet", host: "node-1" },
    firstTimestamp: stamp(i),
    lastTimestamp: stamp(i + 5),
    count: 3,
    type: "Normal",
    eventTime: null,
    reportingComponent: "kubelet",
    reportingInstance: "node-1",
  }),
  "v1 ConfigMap": (i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta(i, `bench-${i % 10}`, "data"),
    data: Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`key-${k}.properties`, `value ${k} `.repeat(30)])),
  }),
};

function messageOf(item: Obj): Uint8Array {
  const { entry, kind } = entryFor(item);
  return encodeMessage(entry.message, item, kind);
}

function timeUs(objects: Obj[], f: (o: Obj) => unknown): number {
  const start = process.hrtime.bigint();
  let sink = 0;
  for (const o of objects) {
    const r = f(o) as { length: number };
    sink += r.length;
  }
  if (sink < 0) throw new Error("unreachable");
  return Number(process.hrtime.bigint() - start) / 1000 / objects.length;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const results: Record<string, Obj> = {};
for (const [name, make] of Object.entries(makers)) {
  const objects = Array.from({ length: COUNT }, (_, i) => make(i));
  const runs: Record<string, number[]> = { json: [], message: [], object: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // Alternated within each round, so load changes hit all three alike.
    runs.json?.push(timeUs(objects, (o) => JSON.stringify(o)));
    runs.message?.push(timeUs(objects, messageOf));
    runs.object?.push(timeUs(objects, encodeObject));
  }
  const json = median(runs.json ?? []);
  const message = median(runs.message ?? []);
  const object = median(runs.object ?? []);
  results[name] = {
    bytes: { json: JSON.stringify(objects[0]).length, protobuf: encodeObject(objects[0] as Obj).length },
    usPerObject: { json: +json.toFixed(2), message: +message.toFixed(2), object: +object.toFixed(2) },
    ratioToJson: { message: +(json / message).toFixed(3), object: +(json / object).toFixed(3) },
  };
}
const load = (await import("node:os")).loadavg()[0]?.toFixed(1);
console.log(JSON.stringify({ count: COUNT, rounds: ROUNDS, loadAverage1m: Number(load), results }, null, 2));
