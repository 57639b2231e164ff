/**
 * The admission dispatcher at the module level, with webhooks given directly (so that
 * sideEffects Some and Unknown, which v1 objects refuse, can be exercised) and a recording
 * poster instead of the network: the dry-run refusal, review versions, DELETE patches, the
 * validating webhooks' parallel calls, and the rule and selector matching.
 */
import { describe, expect, it } from "vitest";
import { type AdmissionAttributes, AdmissionDispatcher } from "../../lib/emulator/admission/dispatcher.js";
import { type MatchAttributes, ruleMatches, selectorMatches } from "../../lib/emulator/admission/matching.js";
import type { WebhookPoster, WebhookResponse } from "../../lib/emulator/admission/webhook-client.js";
import { type Webhook, webhookOf } from "../../lib/emulator/admission/webhooks.js";
import { StatusError } from "../../lib/emulator/apimachinery/api-errors.js";
import { errorString } from "../../lib/emulator/apimachinery/field-errors.js";
import type { KubeObject } from "../../lib/emulator/apimachinery/json.js";
import { validateWebhookConfiguration } from "../../lib/emulator/registry/admissionregistration/validation.js";
import { configMapStrategy } from "../../lib/emulator/registry/core/configmap/strategy.js";

const RULE = { operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] };

function hook(name: string, extra: Record<string, unknown> = {}): Webhook {
  return webhookOf(
    { name, clientConfig: { url: `https://hooks.example/${name}` }, rules: [RULE], sideEffects: "None", admissionReviewVersions: ["v1"], ...extra },
    "cfg",
    0,
  );
}

const CONFIG_MAP: KubeObject = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "cm", namespace: "default" } };

function attrs(extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: "CREATE",
    group: "",
    version: "v1",
    resource: "configmaps",
    subresource: "",
    kind: "ConfigMap",
    name: "cm",
    namespace: "default",
    object: CONFIG_MAP,
    oldObject: undefined,
    dryRun: false,
    options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    userInfo: { username: "u", groups: [] },
    shape: configMapStrategy.shape,
    ...extra,
  };
}

interface Posted {
  url: string | undefined;
  review: any;
}

/** A poster that records the reviews and answers with `answer(review)` (allowed by default). */
function recorder(
  answer: (review: any) => unknown = (r) => ({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: r.request.uid, allowed: true } }),
) {
  const posted: Posted[] = [];
  const post: WebhookPoster = async (config, body): Promise<WebhookResponse> => {
    const review = JSON.parse(body);
    posted.push({ url: config.url, review });
    return { status: 200, contentType: "application/json", body: JSON.stringify(answer(review)) };
  };
  return { posted, post };
}

function dispatcher(validating: Webhook[], mutating: Webhook[], post: WebhookPoster): AdmissionDispatcher {
  return new AdmissionDispatcher({ validating: () => validating, mutating: () => mutating }, () => ({}), post);
}

async function failure(p: Promise<unknown>): Promise<{ code: number; message: string; reason: string | undefined }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return { code: e.code, message: e.status.message ?? "", reason: e.status.reason };
    throw e;
  }
  throw new Error("expected the admission to fail");
}

describe("dry runs and side effects", () => {
  for (const sideEffects of ["Some", "Unknown"]) {
    it(`refuses a dry run that would reach a webhook with sideEffects ${sideEffects}, without calling it, whatever the failurePolicy`, async () => {
      for (const failurePolicy of ["Fail", "Ignore"]) {
        const { posted, post } = recorder();
        const d = dispatcher([hook("side.tollgate.dev", { sideEffects, failurePolicy })], [], post);
        expect(await failure(d.validate(attrs({ dryRun: true }), []))).toEqual({
          code: 400,
          reason: "BadRequest",
          message: 'admission webhook "side.tollgate.dev" does not support dry run',
        });
        const m = dispatcher([], [hook("side.tollgate.dev", { sideEffects, failurePolicy })], post);
        expect(await failure(m.mutate(attrs({ dryRun: true }), []))).toEqual({
          code: 400,
          reason: "BadRequest",
          message: 'admission webhook "side.tollgate.dev" does not support dry run',
        });
        expect(posted).toHaveLength(0);
      }
    });

    it(`calls a webhook with sideEffects ${sideEffects} on a request that is not a dry run`, async () => {
      const { posted, post } = recorder();
      await dispatcher([hook("side.tollgate.dev", { sideEffects })], [], post).validate(attrs(), []);
      expect(posted).toHaveLength(1);
      expect(posted[0]?.review.request.dryRun).toBe(false);
    });
  }

  it("calls webhooks with sideEffects None or NoneOnDryRun on a dry run, telling them so", async () => {
    const { posted, post } = recorder();
    await dispatcher([hook("none.tollgate.dev"), hook("ondry.tollgate.dev", { sideEffects: "NoneOnDryRun" })], [], post).validate(attrs({ dryRun: true }), []);
    expect(posted.map((p) => p.review.request.dryRun)).toEqual([true, true]);
  });

  it("fails a dry run on a webhook without sideEffects as a failed call, which Ignore skips", async () => {
    const { posted, post } = recorder();
    const fail = dispatcher([hook("nil.tollgate.dev", { sideEffects: undefined })], [], post);
    expect(await failure(fail.validate(attrs({ dryRun: true }), []))).toEqual({
      code: 500,
      reason: "InternalError",
      message: 'Internal error occurred: failed calling webhook "nil.tollgate.dev": Webhook SideEffects is nil',
    });
    await dispatcher([hook("nil.tollgate.dev", { sideEffects: undefined, failurePolicy: "Ignore" })], [], post).validate(attrs({ dryRun: true }), []);
    expect(posted).toHaveLength(0);
  });
});

describe("reviews and answers", () => {
  it("sends the first known review version, and takes a v1beta1 answer without uid", async () => {
    const { posted, post } = recorder(() => ({ response: { allowed: true } }));
    await dispatcher([hook("beta.tollgate.dev", { admissionReviewVersions: ["v9", "v1beta1", "v1"] })], [], post).validate(attrs(), []);
    expect(posted[0]?.review.apiVersion).toBe("admission.k8s.io/v1beta1");
  });

  it("fails a webhook that accepts no known review version", async () => {
    const { post } = recorder();
    const f = await failure(dispatcher([hook("v9.tollgate.dev", { admissionReviewVersions: ["v9"] })], [], post).validate(attrs(), []));
    expect(f.message).toBe(
      'Internal error occurred: failed calling webhook "v9.tollgate.dev": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)',
    );
  });

  it("refuses a patch on DELETE, where there is no object to patch", async () => {
    const patch = Buffer.from(JSON.stringify([{ op: "add", path: "/metadata/labels", value: {} }])).toString("base64");
    const { post } = recorder((r) => ({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: r.request.uid, allowed: true, patchType: "JSONPatch", patch },
    }));
    const d = dispatcher([], [hook("del.tollgate.dev")], post);
    const f = await failure(d.mutate(attrs({ operation: "DELETE", object: undefined, oldObject: CONFIG_MAP }), []));
    expect(f.message).toBe(
      'Internal error occurred: admission webhook "del.tollgate.dev" attempted to modify the object, which is not supported for this operation',
    );
  });

  it("says which response fields a validating webhook may not send", async () => {
    const { post } = recorder((r) => ({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: r.request.uid, allowed: true, patchType: "JSONPatch" },
    }));
    const f = await failure(dispatcher([hook("v.tollgate.dev")], [], post).validate(attrs(), []));
    expect(f.message).toBe(
      'Internal error occurred: failed calling webhook "v.tollgate.dev": received invalid webhook response: validating webhook may not return response.patchType',
    );
  });

  it("calls validating webhooks at once and answers with the first failure to arrive", async () => {
    const started: string[] = [];
    const post: WebhookPoster = async (config, body) => {
      const review = JSON.parse(body);
      started.push(config.url ?? "");
      const slow = config.url?.endsWith("/slow.tollgate.dev") === true;
      await new Promise((r) => setTimeout(r, slow ? 100 : 10));
      const message = slow ? "slow says no" : "fast says no";
      return {
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          response: { uid: review.request.uid, allowed: false, status: { message } },
        }),
      };
    };
    const f = await failure(dispatcher([hook("slow.tollgate.dev"), hook("fast.tollgate.dev")], [], post).validate(attrs(), []));
    // Both were called before either answered; the fast one's denial came first.
    expect(started).toHaveLength(2);
    expect(f.message).toBe('admission webhook "fast.tollgate.dev" denied the request: fast says no');
  });
});

describe("matching", () => {
  const base: MatchAttributes = {
    operation: "CREATE",
    group: "",
    version: "v1",
    resource: "pods",
    subresource: "",
    namespace: "ns",
    object: undefined,
    oldObject: undefined,
  };
  const rule = (resources: string[], scope = "*") => ({ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources, scope });

  it("matches resources and subresources as the rule matcher does", () => {
    expect(ruleMatches(rule(["*"]), base)).toBe(true);
    expect(ruleMatches(rule(["*"]), { ...base, subresource: "status" })).toBe(false);
    expect(ruleMatches(rule(["*/*"]), { ...base, subresource: "status" })).toBe(true);
    expect(ruleMatches(rule(["pods/*"]), { ...base, subresource: "status" })).toBe(true);
    expect(ruleMatches(rule(["*/status"]), { ...base, subresource: "status" })).toBe(true);
    expect(ruleMatches(rule(["pods/status"]), base)).toBe(false);
    expect(ruleMatches(rule(["pods"]), { ...base, operation: "UPDATE" })).toBe(false);
  });

  it("matches scopes, counting a namespace object as cluster-scoped", () => {
    const namespaceObject = { ...base, resource: "namespaces", namespace: "ns" };
    expect(ruleMatches(rule(["pods"], "Namespaced"), base)).toBe(true);
    expect(ruleMatches(rule(["pods"], "Cluster"), base)).toBe(false);
    expect(ruleMatches(rule(["namespaces"], "Cluster"), namespaceObject)).toBe(true);
    expect(ruleMatches(rule(["namespaces"], "Namespaced"), namespaceObject)).toBe(false);
  });

  it("matches label selectors, NotIn and DoesNotExist included for absent labels", () => {
    expect(selectorMatches({}, { a: "b" })).toBe(true);
    expect(selectorMatches({ matchLabels: { a: "b" } }, { a: "c" })).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "NotIn", values: ["x"] }] }, {})).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "In", values: ["x"] }] }, {})).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, { a: "" })).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "Exists" }] }, { a: "" })).toBe(true);
  });
});

describe("URL validation", () => {
  const urlErrors = (url: string): string[] =>
    validateWebhookConfiguration(
      {
        kind: "ValidatingWebhookConfiguration",
        apiVersion: "admissionregistration.k8s.io/v1",
        metadata: { name: "c" },
        webhooks: [{ name: "a.b.c", clientConfig: { url }, sideEffects: "None", admissionReviewVersions: ["v1"] }],
      },
      false,
      undefined,
    ).map(errorString);

  it("gives Go's url.Parse errors and the missing host", () => {
    expect(urlErrors("://x")).toEqual([
      'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "://x": missing protocol scheme; desired format: https://host[/path]',
    ]);
    expect(urlErrors("https://h:port/")).toEqual([
      'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://h:port/": invalid port ":port" after host; desired format: https://host[/path]',
    ]);
    expect(urlErrors("https:///path")).toEqual([
      'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]);
    expect(urlErrors("https://[::1]:8443/x")).toEqual([]);
  });

  it("keeps sideEffects Some on an update of an object that already had it", () => {
    const old: KubeObject = {
      kind: "ValidatingWebhookConfiguration",
      apiVersion: "admissionregistration.k8s.io/v1",
      metadata: { name: "c" },
      webhooks: [{ name: "a.b.c", clientConfig: { url: "https://h/" }, sideEffects: "Some", admissionReviewVersions: ["v1"] }],
    };
    expect(validateWebhookConfiguration(old, false, old)).toEqual([]);
    expect(validateWebhookConfiguration(old, false, undefined).map(errorString)).toEqual([
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    ]);
  });
});
