/**
 * The suites must be able to fail. Each case puts a proxy that breaks one rule in front of
 * the emulator, runs its suite through the real CLI, and expects exit 1 with that rule failed
 * in summary.json. That the proxy itself changes nothing is test/mutant-proxy.test.ts; that
 * the same suites pass against the emulator is every embedded run (the conformance project of
 * npm test, and the 20-run flake check through the CLI).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../lib/emulator/index.js";
import { type Mutant, startMutantProxy } from "./support/mutant-proxy.js";
import { runSuiteViaCli } from "./support/run-suite.js";

/**
 * One emulator with authentication on and a 1-second bookmark interval (as in the embedded run),
 * so every suite applies, the auth and bookmark ones too.
 */
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, auth: true, bookmarkIntervalMs: 1000 });
});
afterAll(async () => {
  await emulator.close();
});

const editJson = (body: string, edit: (o: Record<string, unknown>) => void): string => {
  const o = JSON.parse(body) as Record<string, unknown>;
  edit(o);
  return JSON.stringify(o);
};

const STATUS_404 = JSON.stringify({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server could not find the requested resource",
  reason: "NotFound",
  details: {},
  code: 404,
});

const cases: { mutant: Mutant; suite: string; rule: string; alsoFailing?: string[] }[] = [
  // ── Wrong answers the runner meets while detecting what the target offers: a failure, never "not applicable" ──
  {
    // No suite of its own: the runner's detection must meet it too, where it may not become "authentication off".
    mutant: {
      name: "accepts a made-up bearer token (and still refuses requests without credentials)",
      all: true,
      response: (r) =>
        r.code === 401 && /^Bearer /.test(r.requestHeaders.authorization ?? "")
          ? { ...r, code: 200, body: '{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}' }
          : r,
    },
    suite: "suites/errors",
    rule: "doc1.auth.unauthenticated-401",
    alsoFailing: ["doc1.errors.401-unauthenticated"],
  },
  {
    mutant: {
      name: "lists apiextensions in discovery but answers 404 to the CustomResourceDefinition list",
      all: true,
      response: (r) =>
        r.method === "GET" && /^\/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions(\?|$)/.test(r.path) ? { ...r, code: 404, body: STATUS_404 } : r,
    },
    suite: "suites/custom-resources",
    rule: "doc1.paths.group-prefix",
  },
  // ── Optional and gated features the target serves, served wrongly ──
  {
    mutant: { name: "sends no k8s.io/initial-events-end bookmark", watchLine: (l) => (l.includes("k8s.io/initial-events-end") ? undefined : l) },
    suite: "suites/initial-events",
    rule: "doc1.initial-events.step2-bookmark",
  },
  {
    mutant: {
      name: "drops the second initial object of a sendInitialEvents watch",
      watchLines: (path) => {
        let added = 0;
        return (l) => (path.includes("sendInitialEvents=true") && l.includes('"type":"ADDED"') && ++added === 2 ? undefined : l);
      },
    },
    suite: "suites/initial-events",
    rule: "doc1.initial-events.step1-synthetic-added",
  },
  {
    mutant: {
      name: "sends BOOKMARKs that carry more than a resourceVersion",
      watchLine: (l) => (l.includes('"type":"BOOKMARK"') ? l.replace('"metadata":{', '"metadata":{"name":"not-a-bookmark",') : l),
    },
    suite: "suites/bookmarks",
    rule: "doc1.watch-events.bookmark-object",
    alsoFailing: ["doc1.watch-event.bookmark-rv-only"],
  },
  {
    mutant: {
      name: "sends BOOKMARKs whose version goes backwards",
      watchLine: (l) => (l.includes('"type":"BOOKMARK"') ? l.replace(/"resourceVersion":"[0-9]+"/, '"resourceVersion":"1"') : l),
    },
    suite: "suites/bookmarks",
    rule: "doc1.watch-events.bookmark-meaning",
  },
  {
    mutant: {
      name: "drops every 4th event of every watch",
      watchLines: () => {
        let n = 0;
        return (l) => (l.includes('"type":"BOOKMARK"') || ++n % 4 !== 0 ? l : undefined);
      },
    },
    suite: "suites/watch-history",
    rule: "doc1.watch-events.reports-all-outcomes",
  },
  {
    mutant: {
      name: "never compresses (ignores Accept-Encoding: gzip)",
      requestHeaders: (h) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== "accept-encoding")),
    },
    suite: "suites/compression",
    rule: "doc1.headers.gzip",
  },
  // ── Required rules ──
  {
    mutant: {
      name: "leaves items out of an empty list",
      response: (r) => (r.method === "GET" && /"items":\[\]/.test(r.body) ? { ...r, body: editJson(r.body, (o) => delete o.items) } : r),
    },
    suite: "suites/crud",
    rule: "doc1.fields.items-array",
  },
  {
    mutant: {
      name: "accepts a duplicate name",
      response: (r) => (r.method === "POST" && r.code === 409 ? { ...r, code: 201, body: "{}" } : r),
    },
    suite: "suites/object-names",
    rule: "doc1.names.unique-in-namespace",
  },
  {
    mutant: { name: "never reports deletions in a watch", watchLine: (l) => (l.includes('"type":"DELETED"') ? undefined : l) },
    suite: "suites/watch-basic",
    rule: "doc1.watch-events.deleted-type",
  },
  {
    mutant: {
      name: "lists carry resourceVersion 0",
      response: (r) =>
        r.method === "GET" && r.code === 200 && r.body.includes('"kind":"ConfigMapList"')
          ? { ...r, body: editJson(r.body, (o) => ((o.metadata as Record<string, unknown>).resourceVersion = "0")) }
          : r,
    },
    suite: "suites/resource-version",
    rule: "doc1.versioning.rv-decimal-form",
  },
  {
    mutant: {
      name: "ignores resourceVersionMatch on lists",
      request: (method, path) => (method === "GET" ? path.replace(/([?&])resourceVersionMatch=[^&]*&?/, "$1") : path),
    },
    suite: "suites/list-semantics",
    rule: "doc1.list-rv.exact-limit-unset-rv-other-exact",
  },
  {
    mutant: { name: "reports every change twice in a watch", watchLine: (l) => `${l}\n${l}` },
    suite: "suites/watch-history",
    rule: "doc1.watch-events.reports-all-outcomes",
  },
  {
    mutant: {
      name: "drops the note length limit on Events",
      response: (r) => (r.method === "POST" && r.code === 422 && r.body.includes('"field":"message"') ? { ...r, code: 201, body: "{}" } : r),
    },
    suite: "suites/events/validation",
    rule: "doc2.event.note-max-1kb",
  },
  {
    mutant: {
      name: "ignores an Event field selector on regarding.uid and lists everything",
      request: (method, path) => (method === "GET" && path.includes("/events") ? path.replace(/([?&])fieldSelector=regarding\.uid[^&]*&?/, "$1") : path),
    },
    suite: "suites/selectors",
    rule: "doc2.endpoints.list-field-selectors",
  },
  {
    mutant: {
      name: "drops regarding from the Events it returns",
      response: (r) =>
        r.method === "GET" && r.code === 200 && /"kind":"Event(List)?"/.test(r.body)
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                for (const e of (o.items as Record<string, unknown>[] | undefined) ?? [o]) delete e.regarding;
              }),
            }
          : r,
    },
    suite: "suites/events/schema",
    rule: "doc2.event.regarding-reference",
  },
  {
    // One proxy breaks two rules of the Event update suite at once, to keep the run count down.
    mutant: {
      name: "drops series from core v1 Events and deprecatedCount from events.k8s.io Events, and checks an unchanged series on update",
      response: (r) => {
        if (r.method === "GET" && r.code === 200 && /^\/api\/v1\/namespaces\/[^/]+\/events\//.test(r.path))
          return { ...r, body: editJson(r.body, (o) => delete o.series) };
        if (r.method === "GET" && r.code === 200 && /^\/apis\/events\./.test(r.path) && r.body.includes('"deprecatedCount"'))
          return { ...r, body: editJson(r.body, (o) => delete o.deprecatedCount) };
        if (r.method === "PUT" && r.code === 200 && r.body.includes('"series":{"count":1,'))
          return { ...r, code: 422, body: JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Invalid", code: 422 }) };
        return r;
      },
    },
    suite: "suites/events/update-and-core",
    rule: "doc2.service.shared-with-core",
    alsoFailing: ["doc2.event.update-series-checked-if-changed"],
  },
  {
    // Two wrongs of the list-semantics suite in one proxy, to keep the run count down: they touch disjoint lists.
    mutant: {
      name: "answers every paged list of a namespace's configmaps with 410, so a retry never helps, and lists at another resourceVersion without items",
      response: (r) => {
        if (r.method !== "GET" || r.code !== 200 || !r.body.includes('"kind":"ConfigMapList"')) return r;
        if (/\/configmaps\?(.*&)?resourceVersion=(?!0(&|$))/.test(r.path) && !/[?&]limit=/.test(r.path))
          return { ...r, body: editJson(r.body, (o) => (o.items = [])) };
        return /\/configmaps\?(.*&)?limit=/.test(r.path)
          ? {
              ...r,
              code: 410,
              body: JSON.stringify({
                kind: "Status",
                apiVersion: "v1",
                metadata: {},
                status: "Failure",
                message: "too old resource version",
                reason: "Expired",
                code: 410,
              }),
            }
          : r;
      },
    },
    suite: "suites/list-semantics",
    rule: "doc1.list-rv.client-not-older-than-limit-410",
    alsoFailing: ["doc1.list-rv.nomatch-limit-unset-rv-other-not-older-than", "doc1.list-rv.notolderthan-limit-unset-rv-other-not-older-than"],
  },
  {
    mutant: {
      name: "accepts apply bodies that are no objects",
      response: (r) =>
        r.method === "PATCH" && r.code === 400 && r.body.includes("cannot unmarshal") ? { ...r, code: 201, body: JSON.stringify({ metadata: {} }) } : r,
    },
    suite: "suites/patch",
    rule: "doc1.patch.ssa-objects-only",
  },
  {
    mutant: {
      name: "moves deletionTimestamp to each read's time and keeps finalizers in its own (sorted) order",
      response: (r) => {
        if (!/\/configmaps\/[^/?]+(\?|$)/.test(r.path) || r.code !== 200 || !r.body.includes('"finalizers"')) return r;
        return {
          ...r,
          body: editJson(r.body, (o) => {
            const meta = o.metadata as { deletionTimestamp?: string; finalizers?: string[] };
            if (r.method === "GET" && meta.deletionTimestamp) meta.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
            meta.finalizers?.sort();
          }),
        };
      },
    },
    suite: "suites/deletion",
    rule: "doc1.fields.deletion-timestamp",
    alsoFailing: ["doc1.fields.finalizers-unordered"],
  },
  {
    mutant: {
      name: "creates Events in a namespace that cannot exist",
      response: (r) => (r.method === "POST" && r.code === 404 && r.path.includes("/events") ? { ...r, code: 201, body: "{}" } : r),
    },
    suite: "suites/events/validation",
    rule: "doc2.event.namespace-dns-subdomain",
  },
  {
    mutant: {
      name: "changes an Event's note in YAML responses",
      response: (r) =>
        r.method === "GET" && /note: ['"]?written as/.test(r.body) ? { ...r, body: r.body.replace(/(note: ['"]?)written as/g, "$1rewritten as") } : r,
    },
    suite: "suites/events/round-trip",
    rule: "doc1.media.yaml",
  },
  {
    // One proxy breaks three rules of the custom-resource suite at once, to keep the run count down.
    mutant: {
      name: "treats custom resources like built-ins and prints CRDs with Age",
      response: (r) => {
        if (r.method === "PATCH" && r.code === 415 && r.path.includes("/widgets/")) return { ...r, code: 200, body: "{}" };
        if (r.method === "GET" && r.path.includes("/customresourcedefinitions") && r.body.includes('"Created At"'))
          return { ...r, body: r.body.replace('"Created At"', '"Age"') };
        if (r.method === "GET" && r.path.includes("/widgets/") && r.body.includes('"open":{')) return { ...r, body: editJson(r.body, (o) => delete o.open) };
        return r;
      },
    },
    suite: "suites/custom-resources",
    rule: "doc1.patch.strategic-merge-no-crds",
    alsoFailing: ["doc1.table.default-columns", "doc1.field-validation.preserve-unknown"],
  },
  {
    mutant: {
      name: "registers webhooks with side effects",
      response: (r) => (r.method === "POST" && r.code === 422 && r.path.includes("webhookconfigurations") ? { ...r, code: 201, body: "{}" } : r),
    },
    suite: "suites/admission-webhooks",
    rule: "doc1.dry-run.webhook-side-effects",
  },
  {
    mutant: {
      name: "serves GET on finalize and lets a status write change spec",
      response: (r) => {
        if (r.method === "GET" && r.code === 405 && r.path.endsWith("/finalize")) return { ...r, code: 200, body: "{}" };
        if (r.method === "PUT" && r.path.endsWith("/status") && r.path.startsWith("/api/v1/namespaces/")) {
          return { ...r, body: editJson(r.body, (o) => (o.spec = { finalizers: ["changed"] })) };
        }
        return r;
      },
    },
    suite: "suites/subresources",
    rule: "doc1.verbs.subresource-verbs",
    alsoFailing: ["doc1.paths.subresource-cluster-scoped"],
  },
  {
    mutant: {
      name: "lets a known caller do what its role does not grant",
      response: (r) => (r.code === 403 && r.body.includes('"Forbidden"') ? { ...r, code: r.method === "POST" ? 201 : 200, body: "{}" } : r),
    },
    suite: "suites/auth",
    rule: "doc1.auth.unauthorized-401",
    alsoFailing: ["doc1.auth.namespace-scope", "doc1.auth.dry-run-same-authz"],
  },
  {
    mutant: {
      name: "lists only read verbs in discovery and reports release 1.34",
      response: (r) => {
        if (r.method === "GET" && /^\/(api\/v1|apis\/[^/]+\/[^/]+)$/.test(r.path.split("?")[0] ?? "") && r.body.includes('"APIResourceList"')) {
          return { ...r, body: r.body.replace(/"verbs":\[[^\]]*\]/g, '"verbs":["get","list","watch"]') };
        }
        if (r.method === "GET" && r.path === "/version") return { ...r, body: editJson(r.body, (o) => (o.minor = "34")) };
        return r;
      },
    },
    suite: "suites/verbs",
    rule: "doc1.verbs.most-types-all-methods",
    alsoFailing: ["doc1.service.release-1-35"],
  },
  // ── Right status codes with the wrong Status bodies (#14) ──
  {
    mutant: {
      name: "answers a failed PUT with a Status that names no object",
      response: (r) => {
        if (r.method !== "PUT") return r;
        if (r.code === 404) return { ...r, body: STATUS_404 };
        if (r.code === 400) return { ...r, body: editJson(r.body, (o) => (o.message = "bad request")) };
        return r;
      },
    },
    suite: "suites/updates",
    rule: "doc1.paths.replace-put-resource",
    alsoFailing: ["doc1.verbs.create-put-absent"],
  },
  {
    mutant: {
      name: "answers a failed delete precondition with the stale-update Conflict",
      response: (r) =>
        r.method === "DELETE" && r.code === 409
          ? { ...r, body: editJson(r.body, (o) => (o.message = String(o.message).replace(/: the .*$/, ": the object has been modified"))) }
          : r,
    },
    suite: "suites/deletion",
    rule: "doc1.delete-options.standard-fields",
  },
  {
    mutant: {
      name: "writes 406 Status bodies compact and words a bad includeObject freely",
      response: (r) => {
        if (r.code === 406 && r.body.startsWith("{")) return { ...r, body: JSON.stringify(JSON.parse(r.body)) };
        if (r.code === 400) return { ...r, body: editJson(r.body, (o) => (o.message = "bad includeObject")) };
        return r;
      },
    },
    suite: "suites/table",
    rule: "doc1.errors.406-not-acceptable",
    alsoFailing: ["doc1.media.rule3-as-only-406", "doc1.table.row-object"],
  },
  {
    mutant: {
      name: "answers an invalid patch with 422 Invalid but no causes",
      response: (r) =>
        r.method === "PATCH" && r.code === 422 && r.body.includes('"FieldValueInvalid"')
          ? { ...r, body: editJson(r.body, (o) => delete (o.details as { causes?: unknown }).causes) }
          : r,
    },
    suite: "suites/patch",
    rule: "doc1.errors.422-invalid",
  },
  {
    mutant: {
      name: "answers a force on a merge patch with a bare 422",
      response: (r) =>
        r.method === "PATCH" && r.code === 422 && r.body.includes('"PatchOptions"') ? { ...r, body: editJson(r.body, (o) => delete o.details) } : r,
    },
    suite: "suites/events/update-and-core",
    rule: "doc2.endpoints.patch-params",
  },
  {
    mutant: {
      name: "answers an unknown subresource as if the namespace were missing",
      response: (r) =>
        r.method === "GET" && r.code === 404 && r.path.endsWith("/no-such-subresource")
          ? { ...r, body: editJson(r.body, (o) => (o.message = 'namespaces "x" not found')) }
          : r,
    },
    suite: "suites/subresources",
    rule: "doc1.errors.404-not-found",
  },
  {
    mutant: {
      name: "refuses an unknown fieldValidation value without saying which option or why",
      response: (r) =>
        r.method === "POST" && r.code === 422 && r.body.includes('"CreateOptions"')
          ? { ...r, body: editJson(r.body, (o) => (o.message = 'CreateOptions.meta.k8s.io "" is invalid')) }
          : r,
    },
    suite: "suites/field-validation",
    rule: "doc1.query.field-validation-values",
  },
];

/** The name a suite file gives useSuite(): what its client puts in the User-Agent. */
function suiteName(file: string): string {
  const m = /useSuite\("([^"]+)"\)/.exec(readFileSync(resolve(import.meta.dirname, "..", `${file}.test.ts`), "utf8"));
  if (!m?.[1]) throw new Error(`${file}.test.ts declares no useSuite name`);
  return m[1];
}

/**
 * Runs through the real CLI are the slow part of the tests, so cases share runs: each mutant
 * touches only its own suite's requests (by User-Agent), and a batch holds at most one case per
 * suite file, so no mutant meets another's suite.
 */
function batches(): (typeof cases)[] {
  const out: (typeof cases)[] = [];
  for (const c of cases) {
    const free = out.find((b) => !b.some((x) => x.suite === c.suite));
    if (free) free.push(c);
    else out.push([c]);
  }
  return out;
}

async function runThrough(mutants: Mutant[], suites: string[]): Promise<Awaited<ReturnType<typeof runSuiteViaCli>>> {
  const proxy = await startMutantProxy(emulator.url, mutants);
  try {
    const [first, ...rest] = suites;
    return await runSuiteViaCli(proxy.url, first as string, [...rest.flatMap((x) => ["--suite", x]), `--token=${emulator.adminToken ?? ""}`]);
  } finally {
    await proxy.close();
  }
}

describe("suites fail against a wrong server", () => {
  it.each(batches().map((b, i) => ({ i, b, names: b.map((c) => c.mutant.name).join("; ") })))("batch $i: $names", { timeout: 150_000 }, async ({ b }) => {
    const { code, summary, output } = await runThrough(
      b.map((c) => ({ ...c.mutant, suite: c.mutant.all ? undefined : suiteName(c.suite) })),
      b.map((c) => c.suite),
    );
    for (const c of b) {
      for (const id of [c.rule, ...(c.alsoFailing ?? [])])
        expect(summary.rules.find((r) => r.id === id)?.status, `${c.mutant.name}: ${id}\n${output}`).toBe("failed");
    }
    expect(code, output).toBe(1);
  });
});
