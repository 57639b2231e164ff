/**
 * Admission webhooks and dry-run (doc1 "Dry-run behaviour", "Errors"). Registration is checked
 * with dryRun=All, so nothing is registered on the target: a webhook must declare sideEffects
 * None or NoneOnDryRun (admissionregistration v1 refuses anything else), which is also why no
 * dry-run can reach a webhook with side effects on a 1.35 server. Where the target can call
 * back a webhook served by this process (capability `webhook-callback`: a target on this machine), the suite registers one,
 * limited to its own objects, and checks what the webhook sees on dry-run and real requests.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect } from "vitest";
import { daemonTls } from "../fixtures/daemons/tls.js";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse } from "../lib/harness/client.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { type ResourceType, resourcePath } from "../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("admission-webhooks");

type Kind = "validating" | "mutating";
const typeOf = (kind: Kind): ResourceType =>
  kind === "validating" ? suite.session.types.validatingWebhookConfigurations : suite.session.types.mutatingWebhookConfigurations;

function configuration(kind: Kind, name: string, webhook: Record<string, unknown>): KubeObject {
  const t = typeOf(kind);
  return { apiVersion: `${t.group}/${t.version}`, kind: t.kind, metadata: { name }, webhooks: [webhook] };
}

/** A webhook entry that matches nothing of anyone else's: only configmaps carrying this test's own label. */
function webhookEntry(name: string, url: string, caBundle: string, marker: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url, caBundle },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], scope: "Namespaced" }],
    objectSelector: { matchLabels: { "tollgate.dev/webhook-test": marker } },
    admissionReviewVersions: ["v1"],
    failurePolicy: "Fail",
    timeoutSeconds: 5,
    ...extra,
  };
}

const tls = daemonTls();
const caBundle = Buffer.from(tls.cert).toString("base64");

describe("registering a webhook (dry-run only: nothing is registered)", () => {
  for (const kind of ["validating", "mutating"] as const) {
    check(
      {
        title: `${kind}: sideEffects must be None or NoneOnDryRun; Some, Unknown and a missing value are refused with 422`,
        rules: ["doc1.dry-run.webhook-side-effects", "doc1.errors.dry-run-side-effects-fail", "doc1.errors.422-invalid"],
        needs: ["admission-webhooks"],
      },
      async () => {
        const { session } = suite;
        const t = typeOf(kind);
        const post = (sideEffects: string | undefined): Promise<ApiResponse> => {
          const name = uniqueName(`se-${kind}`);
          const entry = webhookEntry(
            `check.${name}.tollgate.dev`,
            "https://127.0.0.1:1/never",
            caBundle,
            name,
            sideEffects === undefined ? {} : { sideEffects },
          );
          return session.client.raw("POST", resourcePath(t), { body: configuration(kind, name, entry), query: { dryRun: "All" } });
        };
        for (const bad of ["Some", "Unknown", undefined]) {
          const res = await post(bad);
          expect(res.code, `sideEffects ${String(bad)}: ${res.text.slice(0, 300)}`).toBe(422);
          expect(res.json).toMatchObject({ kind: "Status", reason: "Invalid", code: 422 });
          const fields = ((res.json as { details?: { causes?: { field?: string }[] } }).details?.causes ?? []).map((c) => c.field);
          expect(fields, `sideEffects ${String(bad)}`).toContain("webhooks[0].sideEffects");
          if (bad) expect((res.json as { message?: string }).message).toContain(`Unsupported value: "${bad}"`);
        }
        for (const good of ["None", "NoneOnDryRun"]) {
          const res = await post(good);
          expect(res.code, `sideEffects ${good}: ${res.text.slice(0, 300)}`).toBe(201);
          const name = (res.json as KubeObject).metadata.name as string;
          expect((await session.client.raw("GET", resourcePath(t, undefined, name))).code, "a dry-run registers nothing").toBe(404);
        }
      },
    );
  }
});

/** A webhook served by this process: records each AdmissionReview, denies objects labelled deny=yes. */
interface Recorder {
  url: string;
  reviews: { dryRun?: boolean; operation?: string; name?: string; uid?: string }[];
  close(): Promise<void>;
}

async function startWebhook(): Promise<Recorder> {
  const reviews: Recorder["reviews"] = [];
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        request?: { uid?: string; dryRun?: boolean; operation?: string; object?: KubeObject };
      };
      const r = review.request ?? {};
      reviews.push({ dryRun: r.dryRun, operation: r.operation, name: r.object?.metadata.name, uid: r.uid });
      const deny = r.object?.metadata.labels?.["deny"] === "yes";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          response: { uid: r.uid, allowed: !deny, ...(deny ? { status: { code: 403, message: "tollgate says no" } } : {}) },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/review`,
    reviews,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe("a registered webhook on dry-run and real requests", () => {
  let hook: Recorder | undefined;
  afterAll(async () => {
    await hook?.close();
  });

  check(
    {
      title: "a NoneOnDryRun webhook is told dryRun=true on a dry-run and false otherwise; its denial refuses the dry-run too; a dry-run stores nothing",
      rules: ["doc1.dry-run.webhook-side-effects", "doc1.dry-run.stages-run", "doc1.dry-run.nothing-persisted"],
      needs: ["admission-webhooks", "webhook-callback"],
      timeout: 60_000,
    },
    async () => {
      const { session, ns } = suite;
      hook = await startWebhook();
      const marker = uniqueName("hook");
      const hookName = `dry-run.${marker}.tollgate.dev`;
      await session.createClusterObject(
        typeOf("validating"),
        "admission-webhooks",
        configuration("validating", marker, webhookEntry(hookName, hook.url, caBundle, marker, { sideEffects: "NoneOnDryRun" })),
      );
      const t = session.types.configmaps;
      const labelled = (name: string, extra: Record<string, string> = {}): KubeObject => {
        const o = configMap(session.types, ns, name);
        return { ...o, metadata: { ...o.metadata, labels: { "tollgate.dev/webhook-test": marker, ...extra } } };
      };
      // A real server may take a moment to start calling a newly registered webhook.
      const probeDeadline = Date.now() + 15_000;
      while (hook.reviews.length === 0 && Date.now() < probeDeadline) {
        await session.client.raw("POST", resourcePath(t, ns), { body: labelled(uniqueName("probe")), query: { dryRun: "All" } });
        if (hook.reviews.length === 0) await new Promise((r) => setTimeout(r, 300));
      }
      expect(hook.reviews.length, "the registered webhook is called").toBeGreaterThan(0);
      hook.reviews.length = 0;

      const dryName = uniqueName("dry");
      const dry = await session.client.raw("POST", resourcePath(t, ns), { body: labelled(dryName), query: { dryRun: "All" } });
      expect(dry.code, dry.text.slice(0, 300)).toBe(201);
      expect((await session.client.raw("GET", resourcePath(t, ns, dryName))).code, "a dry-run stores nothing").toBe(404);
      const realName = uniqueName("real");
      const real = await session.client.raw("POST", resourcePath(t, ns), { body: labelled(realName) });
      expect(real.code, real.text.slice(0, 300)).toBe(201);
      expect(hook.reviews.map((r) => [r.name, r.dryRun])).toEqual([
        [dryName, true],
        [realName, false],
      ]);

      const deniedName = uniqueName("denied");
      const denied = await session.client.raw("POST", resourcePath(t, ns), { body: labelled(deniedName, { deny: "yes" }), query: { dryRun: "All" } });
      expect(denied.code, `admission runs on a dry-run, so the webhook's denial applies: ${denied.text.slice(0, 300)}`).toBe(403);
      expect((denied.json as { message?: string }).message).toContain(`admission webhook "${hookName}" denied the request: tollgate says no`);
    },
  );
});
