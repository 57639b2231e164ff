/**
 * The admission webhook dispatcher (apiserver admission/plugin/webhook mutating and validating
 * dispatchers): which webhooks a request goes to, the call, and what their answers make of it.
 *
 *  - Mutating webhooks run one after the other (configurations by name, webhooks in order).
 *    An allowed answer's JSONPatch is applied to the object, which is decoded again as the type
 *    (unknown fields dropped). When a webhook changed the object, the webhooks with
 *    reinvocationPolicy IfNeeded called before it are called once more, in a second round.
 *  - Validating webhooks are called all at once; the first failure to arrive decides.
 *  - A denial (allowed: false) is the webhook's Status with the message `admission webhook
 *    "<name>" denied the request: <message>` (or `…: <reason>`, or `… denied the request without
 *    explanation`), code at least 400 (400 when none is given).
 *  - A failed call (unreachable, timed out, a bad answer) is 500 `Internal error occurred:
 *    failed calling webhook "<name>": …` under failurePolicy Fail, and is skipped under Ignore.
 *  - A dry run (dryRun=All: the review says `dryRun: true`) is refused with 400 `admission
 *    webhook "<name>" does not support dry run` by a matching webhook whose sideEffects is not
 *    None or NoneOnDryRun, without calling it, whatever its failurePolicy; a webhook without
 *    sideEffects fails as a call (`Webhook SideEffects is nil`). v1 objects cannot hold such
 *    webhooks; the path serves configurations given to the dispatcher otherwise.
 *  - Warnings in answers become Warning headers (`299 - "<text>"`).
 *
 * Known differences: a patch the object cannot take is 500 with fast-json-patch's text; the
 * request's user is a fixed administrator (the emulator does not authenticate); no audit
 * annotations; the request's own deadline is not passed on.
 */

import { makeStatus, type StatusDetails } from "../../wire/status.js";
import { badRequest, internalError, StatusError } from "../apimachinery/api-errors.js";
import { goJsonSyntaxError } from "../apimachinery/go-json-errors.js";
import { isJsonObject, type Json, type JsonObject, type KubeObject } from "../apimachinery/json.js";
import { applyPatchOperations } from "../apimachinery/json-patch-operations.js";
import { asKubeObject } from "../apimachinery/object-meta.js";
import { DecodeError, decodeObject, type StructShape } from "../apimachinery/typed-json.js";
import { isExempt, type MatchAttributes, type NamespaceLabels, webhookApplies } from "./matching.js";
import { InvalidReviewResponse, type ReviewAttributes, type ReviewResponse, readReviewResponse, reviewRequest, reviewVersionFor } from "./review.js";
import { CallFailure, postWebhook, unexpectedStatusText, type WebhookPoster } from "./webhook-client.js";
import type { Webhook, WebhookSource } from "./webhooks.js";

/** A request as admission sees it. */
export interface AdmissionAttributes extends ReviewAttributes, MatchAttributes {
  /** The type's shape: a mutated object is decoded with it again. */
  readonly shape: StructShape;
}

/** ErrCallingWebhook: a failure the failurePolicy decides about. */
class CallingWebhookError extends Error {
  constructor(
    readonly hook: Webhook,
    reason: string,
  ) {
    super(`failed calling webhook ${JSON.stringify(hook.name)}: ${reason}`);
    this.name = "CallingWebhookError";
  }
}

/** webhookerrors.ToStatusErr: the webhook's Status, made a failure and named. */
export function denial(webhookName: string, result: JsonObject | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const r = result ?? {};
  const message = typeof r["message"] === "string" ? r["message"] : "";
  const reason = typeof r["reason"] === "string" ? r["reason"] : "";
  const code = typeof r["code"] === "number" && r["code"] >= 400 ? r["code"] : 400;
  const text = message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = isJsonObject(r["details"]) ? (r["details"] as StatusDetails) : undefined;
  const metadata = isJsonObject(r["metadata"]) ? (r["metadata"] as { resourceVersion?: string; continue?: string }) : undefined;
  return new StatusError(makeStatus({ status: "Failure", message: text, reason, details, code, metadata }));
}

/** webhookerrors.NewDryRunUnsupportedErr. */
const dryRunUnsupported = (webhookName: string): StatusError => badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);

const warningHeader = (text: string): string => `299 - ${JSON.stringify(text)}`;

export class AdmissionDispatcher {
  constructor(
    private readonly source: WebhookSource,
    private readonly namespaceLabels: (name: string) => NamespaceLabels | Promise<NamespaceLabels>,
    private readonly post: WebhookPoster = postWebhook,
  ) {}

  private async matching(hooks: readonly Webhook[], a: MatchAttributes): Promise<Webhook[]> {
    if (isExempt(a)) return [];
    const applies = await Promise.all(hooks.map((h) => webhookApplies(h, a, this.namespaceLabels)));
    return hooks.filter((_, i) => applies[i]);
  }

  /** One call: the review out, the checked answer back; CallingWebhookError for a failed call. */
  private async call(hook: Webhook, a: AdmissionAttributes, mutating: boolean, warnings: string[]): Promise<ReviewResponse> {
    if (a.dryRun) {
      if (hook.sideEffects === undefined) throw new CallingWebhookError(hook, "Webhook SideEffects is nil");
      if (hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun") throw dryRunUnsupported(hook.name);
    }
    const version = reviewVersionFor(hook.admissionReviewVersions);
    if (!version)
      throw new CallingWebhookError(hook, "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)");
    const sent = reviewRequest(version, a);
    let answer: Awaited<ReturnType<typeof this.post>>;
    try {
      answer = await this.post(hook.clientConfig, sent.body, hook.timeoutSeconds);
    } catch (e) {
      if (!(e instanceof CallFailure)) throw e;
      throw new CallingWebhookError(hook, e.stage === "client" ? `could not get REST client: ${e.message}` : `failed to call webhook: ${e.message}`);
    }
    if (answer.status < 200 || answer.status > 206) throw new CallingWebhookError(hook, `failed to call webhook: ${unexpectedStatusText(answer)}`);
    let response: ReviewResponse;
    try {
      response = readReviewResponse(answer.body, sent, mutating);
    } catch (e) {
      if (!(e instanceof InvalidReviewResponse)) throw e;
      throw new CallingWebhookError(hook, e.undecodable ? `failed to call webhook: ${e.message}` : `received invalid webhook response: ${e.message}`);
    }
    for (const w of response.warnings) warnings.push(warningHeader(w));
    if (!response.allowed) throw denial(hook.name, response.result);
    return response;
  }

  /** Applies an allowed answer's patch; returns the new object, or undefined when nothing changed. */
  private applyPatch(hook: Webhook, response: ReviewResponse, a: AdmissionAttributes, object: KubeObject | undefined): KubeObject | undefined {
    if (!response.patch) return undefined;
    let ops: Json;
    try {
      ops = JSON.parse(response.patch.toString("utf8")) as Json;
    } catch (e) {
      throw new CallingWebhookError(hook, `received undecodable patch in webhook response: ${goJsonSyntaxError(response.patch.toString("utf8"), e)}`);
    }
    if (!Array.isArray(ops))
      throw new CallingWebhookError(
        hook,
        "received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch",
      );
    if (ops.length === 0) return undefined;
    if (!object)
      throw internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
    if (response.patchType !== "JSONPatch") throw new CallingWebhookError(hook, `unsupported patch type ${JSON.stringify(response.patchType)}`);
    let patched: Json;
    try {
      // Keys are user data (`__proto__` included): the patch code that stores them as such.
      patched = applyPatchOperations(
        object,
        ops.map((op) => (isJsonObject(op) ? op : {})),
      );
    } catch (e) {
      throw internalError(e instanceof Error ? (e.message.split("\n")[0] ?? e.message) : String(e));
    }
    if (!isJsonObject(patched) || !isJsonObject(patched["metadata"])) throw internalError("Object 'metadata' is missing or invalid after the webhook's patch");
    let decoded: KubeObject;
    try {
      decoded = asKubeObject(decodeObject({ ...patched, kind: object["kind"] ?? null, apiVersion: object["apiVersion"] ?? null }, a.shape).value);
    } catch (e) {
      if (e instanceof DecodeError) throw internalError(e.message);
      throw e;
    }
    return JSON.stringify(decoded) === JSON.stringify(object) ? undefined : decoded;
  }

  /**
   * Mutating admission: the object after every matching mutating webhook (the same object when
   * none changed it). Throws the Status error that refuses the request.
   */
  async mutate(a: AdmissionAttributes, warnings: string[]): Promise<KubeObject | undefined> {
    const hooks = await this.source.mutating();
    let current = a;
    const previouslyInvoked = new Set<string>();
    const reinvoke = new Set<string>();
    let reinvokeRound = false;
    for (const round of [0, 1]) {
      if (round === 1 && !reinvokeRound) break;
      for (const hook of await this.matching(hooks, current)) {
        if (round === 1 && !reinvoke.has(hook.uid)) continue;
        let changed: KubeObject | undefined;
        try {
          const response = await this.call(hook, current, true, warnings);
          changed = this.applyPatch(hook, response, current, current.object);
        } catch (e) {
          if (!(e instanceof CallingWebhookError)) throw e;
          if (hook.failurePolicy === "Ignore") continue;
          throw internalError(e.message);
        }
        if (changed) {
          current = { ...current, object: changed };
          for (const uid of previouslyInvoked) reinvoke.add(uid);
          previouslyInvoked.clear();
          reinvokeRound = true;
        }
        if (hook.reinvocationPolicy === "IfNeeded") previouslyInvoked.add(hook.uid);
      }
    }
    return current.object;
  }

  /** Validating admission: resolves when every matching validating webhook allows the request. */
  async validate(a: AdmissionAttributes, warnings: string[]): Promise<void> {
    const hooks = await this.matching(await this.source.validating(), a);
    if (hooks.length === 0) return;
    const errors: Error[] = [];
    await Promise.all(
      hooks.map(async (hook) => {
        try {
          await this.call(hook, a, false, warnings);
        } catch (e) {
          if (e instanceof CallingWebhookError) {
            if (hook.failurePolicy !== "Ignore") errors.push(internalError(e.message));
            return;
          }
          errors.push(e instanceof Error ? e : new Error(String(e)));
        }
      }),
    );
    const first = errors[0];
    if (first) throw first;
  }
}
