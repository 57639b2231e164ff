/**
 * A local HTTPS admission webhook for the emulator tests: it serves with the daemons' TLS
 * fixture (a self-signed CA certificate for localhost, 127.0.0.1 and ::1), records every
 * AdmissionReview it receives, and answers with what the test's responder says.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { daemonTls } from "../../fixtures/daemons/tls.js";

/** A received review (test-only: `any` so tests read fields directly). */
export type Review = any;

export interface Answer {
  /** The HTTP status (default 200). */
  status?: number;
  /** The body: an object is sent as JSON. */
  body?: unknown;
  /** Never answer (for timeouts). */
  hang?: boolean;
}

export type Responder = (review: Review, path: string) => Answer;

export interface WebhookServer {
  /** https://127.0.0.1:PORT */
  readonly url: string;
  /** base64 of the CA bundle that trusts this server. */
  readonly caBundle: string;
  /** Reviews received, in order, with the path each came to. */
  readonly received: Array<{ path: string; review: Review }>;
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** The answer of a webhook that allows the request (and, with a patch, mutates it). */
export function allow(review: Review, extra: Record<string, unknown> = {}): Answer {
  return { body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true, ...extra } } };
}

export function deny(review: Review, status?: Record<string, unknown>): Answer {
  return {
    body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: false, ...(status ? { status } : {}) } },
  };
}

/** A JSONPatch in the form a mutating webhook returns it. */
export function jsonPatch(ops: unknown[]): Record<string, unknown> {
  return { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") };
}

export async function startWebhookServer(): Promise<WebhookServer> {
  const tls = daemonTls();
  const received: Array<{ path: string; review: Review }> = [];
  let responder: Responder = (review) => allow(review);
  const hanging = new Set<() => void>();
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const path = req.url ?? "";
      received.push({ path, review });
      const answer = responder(review, path);
      if (answer.hang) {
        const end = (): void => void res.destroy();
        hanging.add(end);
        res.on("close", () => hanging.delete(end));
        return;
      }
      const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status ?? 200, { "Content-Type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(tls.cert).toString("base64"),
    received,
    respond(r) {
      responder = r;
    },
    async close() {
      for (const end of [...hanging]) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
