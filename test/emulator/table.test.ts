/**
 * Tables: human durations, the printers' columns and cells (Event, Namespace, ConfigMap, the
 * generic default), includeObject, Tables over HTTP on get, list and watch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../lib/emulator/apimachinery/json.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { CONFIG_MAP_PRINTER } from "../../lib/emulator/registry/core/configmap/printer.js";
import { NAMESPACE_PRINTER } from "../../lib/emulator/registry/core/namespace/printer.js";
import { EVENT_PRINTER } from "../../lib/emulator/registry/events/printer.js";
import { buildTable, DEFAULT_PRINTER, humanDuration, printerOf, timestampSince } from "../../lib/emulator/registry/generic/table.js";
import { coreEventStrategy, eventStrategy } from "../../lib/emulator/registry/index.js";
import { client, configMapBody, eventBody, openWatch, uniq } from "./support.js";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const NOW = Date.parse("2030-06-15T12:00:00Z");
const ago = (ms: number): string => new Date(NOW - ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const microAgo = (ms: number): string => new Date(NOW - ms).toISOString().replace(/Z$/, "000Z");

describe("humanDuration (kubectl's rule)", () => {
  it.each([
    [-5 * S, "<invalid>"],
    [-1500, "0s"],
    [0, "0s"],
    [5 * S, "5s"],
    [119 * S, "119s"],
    [2 * M, "2m"],
    [3 * M + 20 * S, "3m20s"],
    [10 * M + 30 * S, "10m"],
    [179 * M, "179m"],
    [3 * H, "3h"],
    [5 * H + 7 * M, "5h7m"],
    [30 * H, "30h"],
    [2 * D, "2d"],
    [2 * D + 3 * H, "2d3h"],
    [400 * D, "400d"],
    [3 * 365 * D, "3y"],
    [3 * 365 * D + 12 * D, "3y12d"],
    [9 * 365 * D, "9y"],
  ])("%d ms is %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it("prints <unknown> for a zero time", () => {
    expect(timestampSince(null, NOW)).toBe("<unknown>");
    expect(timestampSince(undefined, NOW)).toBe("<unknown>");
    expect(timestampSince(ago(5 * M), NOW)).toBe("5m");
    expect(timestampSince(microAgo(42 * S), NOW)).toBe("42s");
  });
});

const event = (extra: Record<string, unknown>): KubeObject =>
  ({ kind: "Event", apiVersion: "events.k8s.io/v1", metadata: { name: "ev-1", namespace: "ns" }, eventTime: null, ...extra }) as KubeObject;

describe("Event printer", () => {
  it("has the ten columns, all keys, with their priorities and formats", () => {
    expect(EVENT_PRINTER.columns.map((c) => [c.name, c.type, c.priority, c.format])).toEqual([
      ["Last Seen", "string", 0, ""],
      ["Type", "string", 0, ""],
      ["Reason", "string", 0, ""],
      ["Object", "string", 0, ""],
      ["Subobject", "string", 1, ""],
      ["Source", "string", 1, ""],
      ["Message", "string", 0, ""],
      ["First Seen", "string", 1, ""],
      ["Count", "string", 1, ""],
      ["Name", "string", 1, "name"],
    ]);
    expect(EVENT_PRINTER.columns[0]?.description).toBe("The time at which the most recent occurrence of this event was recorded.");
  });

  it("makes the cells of a new-style event: Object, Source from the reporting fields, Message trimmed, Count 1", () => {
    const e = event({
      eventTime: microAgo(90 * S),
      reportingController: "kubelet",
      reportingInstance: "node-1",
      reason: "BackOff",
      type: "Warning",
      regarding: { kind: "Pod", name: "web-0", fieldPath: "spec.containers{app}" },
      note: "  restarting \n",
    });
    expect(EVENT_PRINTER.cells(e, NOW)).toEqual([
      "90s",
      "Warning",
      "BackOff",
      "pod/web-0",
      "spec.containers{app}",
      "kubelet, node-1",
      "restarting",
      "90s",
      1,
      "ev-1",
    ]);
  });

  it("uses the deprecated fields when set, series over them, and a kind alone without a name", () => {
    const old = event({
      deprecatedSource: { component: "scheduler" },
      deprecatedFirstTimestamp: ago(3 * H),
      deprecatedLastTimestamp: ago(5 * M),
      deprecatedCount: 7,
      regarding: { kind: "Node" },
      reportingController: "ignored",
    });
    expect(EVENT_PRINTER.cells(old, NOW)).toEqual(["5m", "", "", "node", "", "scheduler", "", "3h", 7, "ev-1"]);
    const series = event({ eventTime: microAgo(D), series: { count: 4, lastObservedTime: microAgo(30 * S) } });
    const cells = EVENT_PRINTER.cells(series, NOW);
    expect([cells[0], cells[7], cells[8]]).toEqual(["30s", "24h", 4]);
    // No time at all: <unknown>; no source at all: "".
    expect(EVENT_PRINTER.cells(event({}), NOW).slice(0, 9)).toEqual(["<unknown>", "", "", "", "", "", "", "<unknown>", 1]);
  });

  it("reads core/v1 field names too (the printer belongs to the internal type)", () => {
    const core = event({
      involvedObject: { kind: "ConfigMap", name: "c" },
      message: "m ",
      source: { component: "c1", host: "h1" },
      count: 2,
      lastTimestamp: ago(M),
    });
    expect(EVENT_PRINTER.cells(core, NOW)).toEqual(["60s", "", "", "configmap/c", "", "c1, h1", "m", "<unknown>", 2, "ev-1"]);
  });
});

describe("Namespace, ConfigMap and default printers", () => {
  it("Namespace: Name, Status, Age", () => {
    const ns = {
      kind: "Namespace",
      apiVersion: "v1",
      metadata: { name: "n", creationTimestamp: ago(2 * D + 3 * H) },
      status: { phase: "Terminating" },
    } as KubeObject;
    expect(NAMESPACE_PRINTER.columns.map((c) => c.name)).toEqual(["Name", "Status", "Age"]);
    expect(NAMESPACE_PRINTER.cells(ns, NOW)).toEqual(["n", "Terminating", "2d3h"]);
  });

  it("ConfigMap: Name, Data (data plus binaryData, an integer), Age", () => {
    const cm = { metadata: { name: "c", creationTimestamp: ago(10 * S) }, data: { a: "1", b: "2" }, binaryData: { c: "AA==" } } as KubeObject;
    expect(CONFIG_MAP_PRINTER.columns.map((c) => c.name)).toEqual(["Name", "Data", "Age"]);
    expect(CONFIG_MAP_PRINTER.cells(cm, NOW)).toEqual(["c", 3, "10s"]);
    expect(CONFIG_MAP_PRINTER.cells({ metadata: { name: "e" } } as KubeObject, NOW)).toEqual(["e", 0, "<unknown>"]);
  });

  it("the generic default: Name (format name) and Created At (type date) in RFC 3339, for types without printers", () => {
    expect(printerOf({})).toBe(DEFAULT_PRINTER);
    // Both Event types carry the one printer of the internal core.Event.
    expect(printerOf(eventStrategy)).toBe(EVENT_PRINTER);
    expect(printerOf(coreEventStrategy)).toBe(EVENT_PRINTER);
    expect(DEFAULT_PRINTER.columns.map((c) => [c.name, c.type, c.format])).toEqual([
      ["Name", "string", "name"],
      ["Created At", "date", ""],
    ]);
    expect(DEFAULT_PRINTER.cells({ metadata: { name: "l", creationTimestamp: "2024-02-03T04:05:06Z" } } as KubeObject, NOW)).toEqual([
      "l",
      "2024-02-03T04:05:06Z",
    ]);
    expect(DEFAULT_PRINTER.cells({ metadata: { name: "z" } } as KubeObject, NOW)).toEqual(["z", "0001-01-01T00:00:00Z"]);
    // Its empty list has rows: null (a nil slice upstream); the printers' is [].
    expect(
      buildTable(DEFAULT_PRINTER, [], { resourceVersion: "5" }, "meta.k8s.io/v1", { includeObject: "Metadata", noHeaders: false }, NOW)["rows"],
    ).toBeNull();
    expect(
      buildTable(CONFIG_MAP_PRINTER, [], { resourceVersion: "5" }, "meta.k8s.io/v1", { includeObject: "Metadata", noHeaders: false }, NOW)["rows"],
    ).toEqual([]);
  });
});

describe("buildTable", () => {
  const cm = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c", resourceVersion: "9" }, data: { k: "v" } } as KubeObject;
  const table = (includeObject: "Metadata" | "Object" | "None", noHeaders = false): Record<string, unknown> =>
    buildTable(CONFIG_MAP_PRINTER, [cm], undefined, "meta.k8s.io/v1", { includeObject, noHeaders }, NOW);

  it("writes kind, apiVersion, metadata, columnDefinitions, rows in that order, every column key", () => {
    const t = table("Metadata");
    expect(Object.keys(t)).toEqual(["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]);
    expect(t["metadata"]).toEqual({ resourceVersion: "9" });
    for (const c of t["columnDefinitions"] as object[]) expect(Object.keys(c)).toEqual(["name", "type", "format", "description", "priority"]);
  });

  it("embeds PartialObjectMetadata, the object, or null per includeObject; no headers is null", () => {
    expect((table("Metadata")["rows"] as { object: unknown }[])[0]?.object).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: cm.metadata,
    });
    expect((table("Object")["rows"] as { object: unknown }[])[0]?.object).toEqual(cm);
    expect((table("None")["rows"] as { object: unknown }[])[0]).toEqual({ cells: ["c", 1, "<unknown>"], object: null });
    expect(table("Metadata", true)["columnDefinitions"]).toBeNull();
  });

  it("carries continue and remainingItemCount of a list page", () => {
    const t = buildTable(
      CONFIG_MAP_PRINTER,
      [cm],
      { resourceVersion: "12", continue: "tok", remainingItemCount: 4 },
      "meta.k8s.io/v1beta1",
      { includeObject: "Metadata", noHeaders: false },
      NOW,
    );
    expect([t["apiVersion"], t["metadata"]]).toEqual(["meta.k8s.io/v1beta1", { resourceVersion: "12", continue: "tok", remainingItemCount: 4 }]);
  });
});

describe("Tables over HTTP", () => {
  let emu: RunningEmulator;
  let call: ReturnType<typeof client>;
  let ns: string;
  const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
  const cms = (): string => `/api/v1/namespaces/${ns}/configmaps`;
  beforeAll(async () => {
    // Exact lists and streams of this file's own writes: without the namespace controllers' content.
    emu = await startEmulator({ port: 0, namespaceContent: false });
    call = client(emu.url);
    ns = uniq("tables");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    await call("POST", cms(), configMapBody("a", { x: "1" }));
    await call("POST", cms(), configMapBody("b"));
    await call("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, eventBody(ns, "e1", { note: "  hi  " }));
  });
  afterAll(async () => {
    await emu.close();
  });

  it("answers get and list with plain application/json Tables", async () => {
    const one = await call("GET", `${cms()}/a`, undefined, { headers: { accept: TABLE } });
    expect([one.status, one.headers["content-type"], one.json.kind, one.json.rows.length]).toEqual([200, "application/json", "Table", 1]);
    expect(one.json.rows[0].cells.slice(0, 2)).toEqual(["a", 1]);
    const list = await call("GET", cms(), undefined, { headers: { accept: TABLE } });
    expect(list.json.rows.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(["a", "b"]);
    const ev = await call("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, undefined, { headers: { accept: TABLE } });
    expect(ev.json.rows[0].cells.slice(1, 7)).toEqual(["Normal", "Testing", "configmap/subject", "", "tollgate.dev/test, test-1", "hi"]);
    const yaml = await call("GET", cms(), undefined, { headers: { accept: "application/yaml;as=Table;v=v1;g=meta.k8s.io" } });
    expect([yaml.headers["content-type"], yaml.text.startsWith("apiVersion: meta.k8s.io/v1\ncolumnDefinitions:")]).toEqual(["application/yaml", true]);
  });

  it("handles includeObject, and refuses a bad value with 400", async () => {
    const withObject = await call("GET", `${cms()}?includeObject=Object`, undefined, { headers: { accept: TABLE } });
    expect(withObject.json.rows[0].object).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", data: { x: "1" } });
    const none = await call("GET", `${cms()}?includeObject=None`, undefined, { headers: { accept: TABLE } });
    expect(none.text).toContain('"object":null');
    const bad = await call("GET", `${cms()}?includeObject=All`, undefined, { headers: { accept: TABLE } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe(
      `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
    );
    // Without a Table the parameter means nothing.
    expect((await call("GET", `${cms()}?includeObject=All`)).status).toBe(200);
  });

  it("watches as one-row Tables with column definitions in the first event only", async () => {
    const w = await openWatch(emu.url, `${cms()}?watch=true`, { accept: TABLE });
    try {
      expect(w.headers["content-type"]).toBe("application/json");
      const [a, b] = await w.take(2);
      await call("POST", cms(), configMapBody("c"));
      const c = await w.next();
      expect([a?.object.kind, a?.object.rows.length, a?.object.rows[0].cells[0]]).toEqual(["Table", 1, "a"]);
      expect(a?.object.columnDefinitions).toHaveLength(3);
      expect(b?.object.columnDefinitions).toBeNull();
      expect([c?.type, c?.object.rows[0].cells[0], c?.object.columnDefinitions]).toEqual(["ADDED", "c", null]);
      expect(c?.object.rows[0].object.kind).toBe("PartialObjectMetadata");
    } finally {
      w.close();
    }
    // A second watcher of the same change gets its own first event with headers.
    const rv = (await call("GET", cms())).json.metadata.resourceVersion;
    const w1 = await openWatch(emu.url, `${cms()}?watch=true&resourceVersion=${rv}`, { accept: TABLE });
    const w2 = await openWatch(emu.url, `${cms()}?watch=true&resourceVersion=${rv}`, { accept: TABLE });
    await call("POST", cms(), configMapBody("d"));
    await call("POST", cms(), configMapBody("e"));
    for (const w of [w1, w2]) {
      const [d, e] = await w.take(2);
      expect([d?.object.columnDefinitions?.length, e?.object.columnDefinitions]).toEqual([3, null]);
      w.close();
    }
  });

  it("refuses a protobuf-only Table and a Table of another group version", async () => {
    expect((await call("GET", cms(), undefined, { headers: { accept: "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io" } })).status).toBe(406);
    expect((await call("GET", cms(), undefined, { headers: { accept: "application/json;as=Table;v=v2;g=meta.k8s.io" } })).status).toBe(406);
  });
});
