/** doc1 "Object names": uniqueness per scope and reuse after deletion. */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { check, expectFailure, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("object-names");

describe("object names", () => {
  check(
    {
      title: "a second create with the same name in a namespace is refused with 409 AlreadyExists",
      rules: ["doc1.names.unique-in-namespace", "doc1.names.unique-in-scope", "doc1.errors.409-already-exists", "doc1.errors.status-details"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const name = uniqueName("dup");
      await session.client.create(t, ns, configMap(session.types, ns, name, { a: "1" }));
      const err = await expectFailure(session.client.create(t, ns, configMap(session.types, ns, name, { a: "2" })), 409);
      expect(err.status?.reason).toBe("AlreadyExists");
      expect(err.status?.details?.name).toBe(name);
      expect(err.status?.message).toBe(`configmaps "${name}" already exists`);
      const stored = await session.client.get(t, ns, name);
      expect(stored.data).toEqual({ a: "1" });
    },
  );

  check({ title: "the same name may be used in two namespaces", rules: ["doc1.names.unique-in-namespace"] }, async () => {
    const { session, ns } = suite;
    const other = await session.createNamespace("object-names");
    const name = uniqueName("shared");
    const t = session.types.configmaps;
    const a = await session.client.create(t, ns, configMap(session.types, ns, name));
    const b = await session.client.create(t, other, configMap(session.types, other, name));
    expect(a.metadata.uid).not.toBe(b.metadata.uid);
  });

  check({ title: "a name can be reused once the object is deleted", rules: ["doc1.names.reuse-after-delete"] }, async () => {
    const { session, ns } = suite;
    const t = session.types.configmaps;
    const name = uniqueName("reuse");
    const first = await session.client.create(t, ns, configMap(session.types, ns, name, { gen: "1" }));
    await session.client.delete(t, ns, name);
    await expectFailure(session.client.get(t, ns, name), 404);
    const second = await session.client.create(t, ns, configMap(session.types, ns, name, { gen: "2" }));
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    expect((await session.client.get(t, ns, name)).data).toEqual({ gen: "2" });
  });

  check({ title: "cluster-scoped names are unique across the cluster", rules: ["doc1.names.cluster-scoped-unique"] }, async () => {
    const { session } = suite;
    const name = await session.createNamespace("object-names");
    const err = await expectFailure(
      session.client.create(session.types.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } }),
      409,
    );
    expect(err.status?.reason).toBe("AlreadyExists");
    expect(err.status?.message).toBe(`namespaces "${name}" already exists`);
  });

  check({ title: "generateName gives a unique name that starts with the prefix", rules: ["doc1.fields.generate-name"] }, async () => {
    const { session, ns } = suite;
    const t = session.types.configmaps;
    const made = await Promise.all(
      Array.from({ length: 5 }, () => session.client.create(t, ns, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-", namespace: ns } })),
    );
    const names = made.map((o) => o.metadata.name ?? "");
    for (const n of names) expect(n).toMatch(/^gen-[a-z0-9]+$/);
    expect(new Set(names).size).toBe(names.length);
  });
});
