/**
 * The descriptor table as data (what `npm run build` precomputes into dist/ for the compiled
 * copy) gives back the very table the schema text builds: every message, field, type link,
 * option and order.
 */
import { describe, expect, it } from "vitest";
import { descriptorTableData, type FieldDesc, type MessageDesc, messageDesc, schemaTable, tableFromData } from "../../../lib/wire/protobuf/descriptors.js";

describe("the precomputed descriptor table", () => {
  const fromSchema = schemaTable();
  const fromData = tableFromData(JSON.parse(JSON.stringify(descriptorTableData())));

  /** A message with its links replaced by the linked message's name (deep equality would walk the recursive schema types forever). */
  const flat = (table: Map<string, MessageDesc>, desc: MessageDesc) => {
    const field = (f: FieldDesc) => {
      const t = f.type;
      // A link must be the table's own entry, not a copy.
      const link = (m: MessageDesc) => (table.get(m.fullName) === m ? `-> ${m.fullName}` : `copy of ${m.fullName}`);
      const type =
        t.kind === "scalar"
          ? t
          : t.kind === "message"
            ? { kind: t.kind, message: link(t.message) }
            : { kind: t.kind, value: typeof t.value === "string" ? t.value : link(t.value) };
      return { ...f, type };
    };
    return {
      keys: Object.keys(desc),
      fullName: desc.fullName,
      special: desc.special,
      fields: desc.fields.map(field),
      byNumber: desc.byNumber.map(field),
      fieldForNumber: [...desc.fieldForNumber].map(([n, f]) => [n, field(f)]),
    };
  };

  it("has the schema's messages, each equal to the one the schema builds", () => {
    expect([...fromData.keys()]).toEqual([...fromSchema.keys()]);
    expect(fromSchema.size).toBeGreaterThan(100);
    for (const [name, desc] of fromSchema) expect(flat(fromData, fromData.get(name) as MessageDesc), name).toEqual(flat(fromSchema, desc));
  });

  it("links message fields to the table's own entries, as the schema's table does", () => {
    const linkedOf = (table: Map<string, MessageDesc>, message: string, field: string): MessageDesc | undefined => {
      const t = table.get(message)?.fields.find((f) => f.name === field)?.type;
      return t?.kind === "message" ? t.message : undefined;
    };
    const cm = "k8s.io.api.core.v1.ConfigMap";
    expect(linkedOf(fromData, cm, "metadata")).toBe(fromData.get("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    expect(linkedOf(fromSchema, cm, "metadata")).toBe(fromSchema.get("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    // Field order (JSON) and number order (protobuf) both kept; the lookup by number too.
    const meta = fromData.get("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta") as MessageDesc;
    expect(meta.fields.map((f) => f.name)).toEqual(messageDesc("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta").fields.map((f) => f.name));
    expect(meta.byNumber.map((f) => f.number)).toEqual([...meta.byNumber.map((f) => f.number)].sort((a, b) => a - b));
    expect(meta.fieldForNumber.get(1)?.name).toBe("name");
  });
});
