/**
 * The HTTP front: routing, the non-resource endpoints, and the one place where every error
 * becomes a Status response (an unexpected throw is a 500 InternalError, never a crash).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleAdmin, isAdminPath } from "./admin.js";
import { ApiError, internalError, methodNotAllowed, pathNotFound } from "./api-errors.js";
import { EmulatorClock } from "./clock.js";
import { ContinueTokenSigner } from "./continue-token.js";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, VERSION_INFO } from "./discovery.js";
import { EventTtl } from "./event-ttl.js";
import { GenericRegistry } from "./generic-registry.js";
import type { EmulatorParts, WatchRegistry } from "./handlers/context.js";
import { handleResource } from "./handlers/index.js";
import { writeJson, writeStatus, writeText } from "./http-io.js";
import { NamespaceLifecycle } from "./namespace-lifecycle.js";
import type { FeatureGates } from "./feature-gates.js";
import { encodeBody } from "./handlers/respond.js";
import { contentTypeOf, negotiateJsonOnly, negotiateStatusEncoding, wantsPretty } from "./negotiation.js";
import { ObjectStorage } from "./object-storage.js";
import type { EmulatorSettings } from "./options.js";
import { ResourceRegistry } from "./resources.js";
import { route } from "./router.js";
import { MemoryStore } from "./store.js";
import { defaultStrategies, eventStrategy } from "./strategies/index.js";

export interface EmulatorServer {
  readonly server: Server;
  readonly parts: EmulatorParts;
  /** Listens and resolves with the base URL. */
  listen(host: string, port: number): Promise<string>;
  /** Ends every watch and connection, stops the controllers, and closes the server. */
  close(): Promise<void>;
}

/**
 * Writes an error as a Status (responsewriters.ErrorNegotiated): in the encoding the Accept
 * header allows for a Status (no Table or metadata-only forms apply to it), or, when it allows
 * none, as indented JSON with the error's own code (WriteRawJSON). That is why a 406 for a
 * failed negotiation is always indented JSON (wire-facts §4, 406 row).
 */
function respondError(res: ServerResponse, req: IncomingMessage, error: unknown, pretty: boolean, gates: FeatureGates): void {
  if (res.headersSent) {
    // A watch already streaming: nothing more can be said on this response.
    if (!res.writableEnded) res.end();
    return;
  }
  const status = error instanceof ApiError ? error.status : internalError(error instanceof Error ? error.message : String(error)).status;
  const encoding = negotiateStatusEncoding(req.headers.accept, gates);
  if (encoding === undefined || encoding === "json") {
    writeStatus(res, status, { pretty: pretty || encoding === undefined });
    return;
  }
  const retry = status.details?.retryAfterSeconds;
  const bytes = encodeBody(encoding, status, false);
  res.writeHead(status.code ?? 500, {
    ...(retry ? { "Retry-After": String(retry) } : {}),
    "Cache-Control": "no-cache, private",
    "Content-Type": contentTypeOf(encoding),
    "Content-Length": String(bytes.length),
  });
  res.end(bytes);
}

async function handle(parts: EmulatorParts, address: () => string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://emulator.invalid");
  const pretty = wantsPretty(req, url);
  try {
    // Disabled, the admin paths fall through to the router, which knows nothing of them: 404.
    if (parts.settings.admin && isAdminPath(url.pathname)) {
      await handleAdmin({ parts, req, res, pathname: url.pathname, pretty });
      return;
    }
    const r = route(url.pathname, parts.registry);
    if (r.kind === "notFound") throw pathNotFound();
    if (r.kind === "resource") {
      await handleResource({ parts, req, res, url, route: r, pretty });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed();
    if (r.kind === "health") {
      writeText(res, 200, "ok");
      return;
    }
    negotiateJsonOnly(req);
    const body =
      r.kind === "version"
        ? VERSION_INFO
        : r.kind === "apiVersions"
          ? apiVersions(address())
          : r.kind === "apiGroupList"
            ? apiGroupList(parts.registry)
            : r.kind === "apiGroup"
              ? apiGroup(parts.registry, r.group)
              : apiResourceList(parts.registry, r.group, r.version);
    writeJson(res, 200, body, { pretty });
  } catch (e) {
    respondError(res, req, e, pretty, parts.settings.featureGates);
  }
}

export function createEmulatorServer(settings: EmulatorSettings): EmulatorServer {
  const clock = new EmulatorClock();
  const store = new MemoryStore({ retentionMs: settings.retentionMs, now: () => clock.now() });
  const storage = new ObjectStorage(store);
  const registry = new ResourceRegistry(defaultStrategies());
  const generic = new GenericRegistry(storage, () => clock.date());
  // Events expire a time after their last write, whichever group wrote them: both store under
  // events.k8s.io's prefix (core v1 through its storage view), which the TTL follows.
  const eventTtl = new EventTtl(store, `${eventStrategy.storagePrefix}/`, () => clock.now(), settings.eventTtlMs);
  eventTtl.start();
  const lifecycle = new NamespaceLifecycle(generic, registry, { cleanupDelayMs: settings.namespaceCleanupDelayMs }, () => clock.date());
  const watches: WatchRegistry = new Set();
  const continueTokens = new ContinueTokenSigner();
  const parts: EmulatorParts = { registry, storage, generic, lifecycle, settings, watches, clock, continueTokens, eventTtl };
  lifecycle.seed();

  const server = createServer();
  const address = (): string => {
    const a = server.address() as AddressInfo | null;
    return a ? `${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}` : "";
  };
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    res.on("error", () => {});
    req.on("error", () => {});
    handle(parts, address, req, res).catch((e: unknown) => respondError(res, req, e, false, settings.featureGates));
  });
  server.on("clientError", (_err, socket) => socket.destroy());

  return {
    server,
    parts,
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve(`http://${address()}`);
        });
      }),
    close: async () => {
      lifecycle.stop();
      eventTtl.stop();
      for (const end of [...watches]) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
