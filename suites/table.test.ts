/**
 * doc1 "Table representation" with the real server's columns and row objects
 * (wire-facts §8): Tables on get, list (chunked too) and watch, includeObject, refusals.
 */
import { beforeAll, describe, expect } from "vitest";
import { configMap, event } from "../fixtures/objects.js";
import type { ApiResponse, Query } from "../lib/harness/client.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { type ResourceType, resourcePath } from "../lib/harness/resources.js";
import { check, expectNotAcceptable, useSuite } from "./support/conformance.js";

const suite = useSuite("table");

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}
interface Table {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string };
  columnDefinitions: Column[] | null;
  rows: { cells: unknown[]; object?: KubeObject }[];
}

const tableAccept = (): string => `application/json;as=Table;v=v1;g=meta.${suite.session.settings.spec.groupDomain}`;

async function asTable(t: ResourceType, ns: string | undefined, name?: string, query?: Query, accept = tableAccept()): Promise<ApiResponse> {
  return suite.session.client.raw("GET", resourcePath(t, ns, name), { accept, query });
}

function table(res: ApiResponse): Table {
  expect(res.code, res.text.slice(0, 300)).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  const tb = res.json as Table;
  expect(tb.kind).toBe("Table");
  expect(tb.apiVersion).toBe(`meta.${suite.session.settings.spec.groupDomain}/v1`);
  return tb;
}

beforeAll(async () => {
  const { session, ns } = suite;
  await session.client.create(session.types.configmaps, ns, configMap(session.types, ns, "t-1", { a: "1", b: "2" }));
  await session.client.create(session.types.configmaps, ns, configMap(session.types, ns, "t-2"));
  await session.client.create(session.types.events, ns, { ...event(session.types, ns, "ev-1", "  padded note  "), type: "Warning", reason: "BackOff" });
});

describe("Table", () => {
  check(
    {
      title: "as=Table;g=meta.<domain>;v=v1 asks for a Table: kind Table, apiVersion meta.<domain>/v1, served as plain application/json",
      rules: ["doc1.media.table-type", "doc1.table.kind-api-version", "doc1.table.content-type"],
    },
    async () => {
      const { session, ns } = suite;
      const res = await asTable(session.types.configmaps, ns);
      expect(res.code).toBe(200);
      expect(res.headers["content-type"], "no as/g/v parameters in the answer").toBe("application/json");
      expect(res.json).toMatchObject({ kind: "Table", apiVersion: `meta.${session.settings.spec.groupDomain}/v1` });
      // Without the as=Table clause the same request is the plain list.
      const plain = await asTable(session.types.configmaps, ns, undefined, undefined, "application/json");
      expect(plain.json).toMatchObject({ kind: "ConfigMapList" });
    },
  );

  check(
    {
      title: "the Table parameters work with YAML too; Table has no protobuf form, so protobuf alone is 406",
      rules: ["doc1.media.rule2-table-encodings"],
    },
    async () => {
      const { session, ns } = suite;
      const params = `as=Table;g=meta.${session.settings.spec.groupDomain};v=v1`;
      const yaml = await asTable(session.types.configmaps, ns, undefined, undefined, `application/yaml;${params}`);
      expect(yaml.code, yaml.text.slice(0, 300)).toBe(200);
      expect(yaml.headers["content-type"]).toMatch(/^application\/yaml/);
      expect(yaml.text).toMatch(/^kind: Table$/m);
      expect(yaml.text).toMatch(/^columnDefinitions:$/m);
      const pb = await asTable(session.types.configmaps, ns, undefined, undefined, `application/vnd.kubernetes.protobuf;${params}`);
      expect(pb.code, pb.text.slice(0, 300)).toBe(406);
    },
  );

  check(
    {
      title: "a ConfigMap list as a Table: every column defined with all five keys, one row per object, PartialObjectMetadata rows",
      rules: ["doc1.table.column-definitions", "doc1.table.rows-shape", "doc1.table.row-object"],
    },
    async () => {
      const { session, ns } = suite;
      const tb = table(await asTable(session.types.configmaps, ns));
      expect(tb.columnDefinitions?.map((c) => [c.name, c.type])).toEqual([
        ["Name", "string"],
        ["Data", "string"],
        ["Age", "string"],
      ]);
      for (const c of tb.columnDefinitions ?? []) expect(Object.keys(c).sort()).toEqual(["description", "format", "name", "priority", "type"]);
      expect(tb.metadata.resourceVersion).toMatch(/^[1-9][0-9]*$/);
      // This suite's rows: a real cluster's namespace holds other ConfigMaps too (kube-root-ca.crt).
      const own = tb.rows.filter((r) => String(r.cells[0]).startsWith("t-"));
      expect(own.map((r) => r.cells[0])).toEqual(["t-1", "t-2"]);
      expect(own[0]?.cells[1]).toBe(2);
      const obj = own[0]?.object;
      expect(obj?.kind).toBe("PartialObjectMetadata");
      expect(obj?.metadata.name).toBe("t-1");
      expect(obj?.data).toBeUndefined();
    },
  );

  check(
    { title: "Event tables have the real columns, all of them whatever their priority", rules: ["doc1.table.wide-columns", "doc1.table.column-definitions"] },
    async () => {
      const { session, ns } = suite;
      const tb = table(await asTable(session.types.events, ns));
      expect(tb.columnDefinitions?.map((c) => [c.name, c.priority])).toEqual([
        ["Last Seen", 0],
        ["Type", 0],
        ["Reason", 0],
        ["Object", 0],
        ["Subobject", 1],
        ["Source", 1],
        ["Message", 0],
        ["First Seen", 1],
        ["Count", 1],
        ["Name", 1],
      ]);
      const row = tb.rows.find((r) => r.cells[9] === "ev-1");
      expect(row?.cells.slice(1, 4)).toEqual(["Warning", "BackOff", "configmap/subject"]);
      expect(row?.cells[6], "the message cell is the note, trimmed").toBe("padded note");
      expect(row?.cells[8], "count defaults to 1").toBe(1);
    },
  );

  check({ title: "a single object as a Table, and a Namespace's columns", rules: ["doc1.media.table-type", "doc1.table.rows-shape"] }, async () => {
    const { session, ns } = suite;
    const one = table(await asTable(session.types.configmaps, ns, "t-1"));
    expect(one.rows).toHaveLength(1);
    expect(one.rows[0]?.cells[0]).toBe("t-1");
    const nsTable = table(await asTable(session.types.namespaces, undefined, ns));
    expect(nsTable.columnDefinitions?.map((c) => c.name)).toEqual(["Name", "Status", "Age"]);
    expect(nsTable.rows[0]?.cells.slice(0, 2)).toEqual([ns, "Active"]);
  });

  check(
    { title: "includeObject=Object embeds the full object, None leaves it out, and anything else is a 400", rules: ["doc1.table.row-object"] },
    async () => {
      const { session, ns } = suite;
      const rowOf = (tb: Table) => tb.rows.find((r) => r.cells[0] === "t-1");
      const full = table(await asTable(session.types.configmaps, ns, undefined, { includeObject: "Object" }));
      expect(rowOf(full)?.object).toMatchObject({ kind: "ConfigMap", data: { a: "1", b: "2" } });
      const none = table(await asTable(session.types.configmaps, ns, undefined, { includeObject: "None" }));
      // Go writes an empty RawExtension as null (omitempty never drops a struct); wire-facts §8 says "omitted".
      expect(rowOf(none)).toBeDefined();
      expect(rowOf(none)?.object ?? null).toBeNull();
      const bad = await asTable(session.types.configmaps, ns, undefined, { includeObject: "Everything" });
      expect(bad.code, bad.text.slice(0, 300)).toBe(400);
      expect(bad.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      expect((bad.json as { message?: string }).message).toMatch(/^Unable to convert to Table as requested: includeObject: .*"Everything"/);
    },
  );

  check({ title: "a chunked Table list pages like any list", rules: ["doc1.chunking.step2-next-chunk", "doc1.meta-lists.partial-list"] }, async () => {
    const { session, ns } = suite;
    // The whole list's names, the suite's and any the cluster put there, in order.
    const names = table(await asTable(session.types.configmaps, ns)).rows.map((r) => r.cells[0]);
    const first = table(await asTable(session.types.configmaps, ns, undefined, { limit: 1 }));
    expect(first.rows.map((r) => r.cells[0])).toEqual(names.slice(0, 1));
    expect(first.metadata.continue).toBeTruthy();
    const second = table(await asTable(session.types.configmaps, ns, undefined, { limit: 1, continue: first.metadata.continue }));
    expect(second.rows.map((r) => r.cells[0])).toEqual(names.slice(1, 2));
  });

  check({ title: "a Table watch sends one-row Tables, with column definitions only in the first event", rules: ["doc1.table.rows-shape"] }, async () => {
    const { session } = suite;
    const ns = await session.createNamespace("table");
    const t = session.types.configmaps;
    await session.client.create(t, ns, configMap(session.types, ns, "w-1"));
    const w = await session.client.watch(t, ns, {}, { accept: tableAccept() });
    try {
      // The synthetic ADDED events: w-1's, and those of what the cluster put in the namespace (kube-root-ca.crt).
      const initial = [];
      do initial.push(await w.next());
      while (initial.length < 10 && (initial.at(-1)?.object as unknown as Table | undefined)?.rows[0]?.cells[0] !== "w-1");
      await session.client.create(t, ns, configMap(session.types, ns, "w-2"));
      const second = await w.next();
      const tables = initial.map((e) => e?.object as unknown as Table);
      const t1 = tables[0] as Table;
      const t2 = second?.object as unknown as Table;
      expect(initial.map((e, i) => [e?.type, tables[i]?.kind, tables[i]?.rows.length])).toEqual(initial.map(() => ["ADDED", "Table", 1]));
      expect(tables.map((tb) => tb.rows[0]?.cells[0])).toContain("w-1");
      expect(t1.columnDefinitions?.length).toBeGreaterThan(0);
      for (const tb of tables.slice(1)) expect(tb.columnDefinitions).toBeNull();
      expect([second?.type, t2.rows[0]?.cells[0]]).toEqual(["ADDED", "w-2"]);
      expect(t2.columnDefinitions).toBeNull();
    } finally {
      w.close();
    }
  });

  check(
    {
      title: "Table refusals: only a protobuf Table, or a Table of an unknown group version, gives 406; adding JSON falls back to the full object",
      rules: ["doc1.media.rule3-as-only-406", "doc1.media.rule3-fallback-full-object", "doc1.media.rule2-binary-params", "doc1.errors.406-not-acceptable"],
    },
    async () => {
      const { session, ns } = suite;
      const { vendor, groupDomain } = session.settings.spec;
      const onlyPb = await asTable(
        session.types.configmaps,
        ns,
        undefined,
        undefined,
        `application/vnd.${vendor}.protobuf;as=Table;v=v1;g=meta.${groupDomain}`,
      );
      expectNotAcceptable(onlyPb);
      const wrongGv = await asTable(session.types.configmaps, ns, undefined, undefined, `application/json;as=Table;v=v7;g=meta.${groupDomain}`);
      // Negotiation refuses a Table of any other group version before asTable could say "no Table exists".
      expectNotAcceptable(wrongGv);
      const fallback = await asTable(
        session.types.configmaps,
        ns,
        undefined,
        undefined,
        `application/json;as=Table;v=v7;g=meta.${groupDomain}, application/json;q=0.9`,
      );
      expect(fallback.code).toBe(200);
      expect((fallback.json as { kind?: string }).kind).toBe("ConfigMapList");
    },
  );
});
