/**
 * The HTTP front: routing, the non-resource endpoints, and the one place where every error
 * becomes a Status response (an unexpected throw is a 500 InternalError, never a crash).
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { parseGoBool } from "../../wire/go-strconv.js";
import { AdmissionDispatcher } from "../admission/dispatcher.js";
import { storedWebhooks } from "../admission/webhooks.js";
import { badRequest, internalError, methodNotAllowed, pathNotFound, StatusError } from "../apimachinery/api-errors.js";
import { EmulatorClock } from "../apimachinery/clock.js";
import type { FeatureGates } from "../apimachinery/feature-gates.js";
import { emulatorDepthMessage, isStackOverflow } from "../apimachinery/json.js";
import { enableAuth, enableNoAuth, noAuthUser, plainNoAuthUser, seedDefaultPolicy } from "../auth/index.js";
import type { Failpoints } from "../failpoints.js";
import type { EmulatorSettings } from "../options.js";
import { CrdController } from "../registry/apiextensions/crd-controller.js";
import { type LeaderElectionConfig, LeaderElector } from "../registry/coordination/leader-elector.js";
import { NamespaceContentController } from "../registry/core/namespace/content-controller.js";
import { NamespaceLifecycle } from "../registry/core/namespace/lifecycle.js";
import { NAMESPACE_DELETER } from "../registry/core/namespace/rest.js";
import { KubernetesServiceController } from "../registry/core/service/kubernetes-service.js";
import { Capabilities } from "../registry/generic/capabilities.js";
import { GenericRegistry } from "../registry/generic/registry.js";
import { ResourceRegistry } from "../registry/generic/strategy.js";
import { defaultStrategies, eventStrategy, mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from "../registry/index.js";
import { storageVersionForms } from "../registry/storage-versions.js";
import { ContinueTokenSigner } from "../storage/continue-token.js";
import { EtcdKeyValueStore } from "../storage/etcd/etcd-kv.js";
import { EtcdUnavailable } from "../storage/etcd/etcd-store.js";
import { EventTtl } from "../storage/event-ttl.js";
import { withStoreFailpoints } from "../storage/failpoint-kv.js";
import { type KeyValueStore, MemoryKeyValueStore } from "../storage/kv.js";
import { ObjectStorage } from "../storage/object-storage.js";
import type { ServingTls } from "../tls.js";
import { handleAdmin, isAdminPath } from "./admin.js";
import { wantsAggregatedDiscovery, writeAggregatedDiscovery } from "./aggregated-discovery.js";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, VERSION_INFO } from "./discovery.js";
import type { EmulatorParts, WatchRegistry } from "./handlers/context.js";
import { handleResource } from "./handlers/index.js";
import { encodeBody } from "./handlers/respond.js";
import { answerHealth } from "./health.js";
import { closeIfBodyUnread, writeJson, writeStatus } from "./http-io.js";
import { contentTypeOf, negotiateJsonOnly, negotiateStatusEncoding, wantsPretty } from "./negotiation.js";
import { handleOpenApi, isOpenApiPath } from "./openapi/handler.js";
import { checkRequestTimeout } from "./request-timeout.js";
import { route } from "./router.js";

export interface EmulatorServer {
  /** An https.Server when made with a serving certificate (same events, same options). */
  readonly server: Server | HttpsServer;
  readonly parts: EmulatorParts;
  /** Listens and resolves with the base URL (https:// when made with a serving certificate). */
  listen(host: string, port: number): Promise<string>;
  /** Requests counted by the in-flight limit that are being served now (0 when no limit is set). */
  inFlight(): number;
  /** With leader election: this replica's holderIdentity. */
  readonly leaderIdentity: string | undefined;
  /** Ends every watch and connection, stops the controllers, and closes the server. */
  close(): Promise<void>;
}

/** API Priority and Fairness's rejection, plain text and not a Status (wire-facts §4, 429 row). */
const TOO_MANY_REQUESTS_TEXT = "Too many requests, please try again later.";

/**
 * The in-flight limit (kube-apiserver --max-requests-inflight): a counter taken at request
 * start and given back after the response's 'close'. Watches (long-running), health checks and
 * the admin endpoint are exempt, as long-running requests and probes are on a real server.
 */
class InFlightLimit {
  count = 0;
  constructor(private readonly max: number) {}

  /** False when the request was answered 429; otherwise it is counted (when it counts). */
  admit(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    if (this.max <= 0 || exempt(url)) return true;
    if (this.count >= this.max) {
      res.writeHead(429, {
        "Retry-After": "1",
        "Cache-Control": "no-cache, private",
        "Content-Type": "text/plain; charset=utf-8",
        "X-Content-Type-Options": "nosniff",
        "Content-Length": String(Buffer.byteLength(TOO_MANY_REQUESTS_TEXT)),
      });
      res.end(req.method === "HEAD" ? undefined : TOO_MANY_REQUESTS_TEXT);
      return false;
    }
    this.count += 1;
    // Given back at the end of the event-loop turn that closed the response: the emulator serves
    // most requests within one turn, so requests read in the same turn count as concurrent.
    res.once("close", () => {
      setImmediate(() => {
        this.count -= 1;
      });
    });
    return true;
  }
}

/** Long-running (a watch, by ?watch= or the deprecated /watch/ prefix), a health probe, or the admin endpoint. */
function exempt(url: URL): boolean {
  const path = url.pathname;
  if (isAdminPath(path) || /^\/(healthz|readyz|livez)(\/|$)/.test(path)) return true;
  return isWatch(url);
}

function isWatch(url: URL): boolean {
  const path = url.pathname;
  if (/^\/api\/[^/]+\/watch(\/|$)/.test(path) || /^\/apis\/[^/]+\/[^/]+\/watch(\/|$)/.test(path)) return true;
  const watch = url.searchParams.get("watch");
  return watch !== null && watch !== "" && parseGoBool(watch) === true;
}

/**
 * Writes an error as a Status (responsewriters.ErrorNegotiated): in the encoding the Accept
 * header allows for a Status (no Table or metadata-only forms apply to it), or, when it allows
 * none, as indented JSON with the error's own code (WriteRawJSON). That is why a 406 for a
 * failed negotiation is always indented JSON (wire-facts §4, 406 row).
 */
function respondError(res: ServerResponse, req: IncomingMessage, error: unknown, pretty: boolean, gates: FeatureGates, failpoints: Failpoints): void {
  if (res.headersSent) {
    // A watch already streaming: nothing more can be said on this response.
    if (!res.writableEnded) res.end();
    return;
  }
  // A value nested past what this thread's stack follows, missed by the depth checks on the
  // body: the request's fault (a 400 that says why), not a 500 with V8's words.
  const cause = isStackOverflow(error) ? badRequest(emulatorDepthMessage()) : error;
  if (cause instanceof EtcdUnavailable) {
    // etcd out of reach: a real server waits for it until the request's deadline, then its
    // timeout filter answers this bare Status, with no kind or apiVersion (wire-facts §21).
    writeJson(res, 504, ETCD_TIMEOUT_STATUS, { pretty });
    return;
  }
  let status = cause instanceof StatusError ? cause.status : internalError(cause instanceof Error ? cause.message : String(cause)).status;
  if (failpoints.has("conflict-as-500") && status.code === 409 && status.reason === "Conflict") status = internalError(status.message ?? "conflict").status;
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

const ETCD_TIMEOUT_STATUS = {
  metadata: {},
  status: "Failure",
  message: "Timeout: request did not complete within the allotted timeout",
  reason: "Timeout",
  details: {},
  code: 504,
};

/** http.Server's MaxHeaderBytes in kube-apiserver (pkg/server/secure_serving.go). */
const MAX_HEADER_BYTES = 1 << 20;

/** Go's fixed headers of the answers its server writes itself before any handler runs. */
const GO_ERROR_HEADERS = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n";

/** How long a socket answered with a raw error stays open for the client to read it (Go's rstAvoidanceDelay). */
const LINGER_MS = 500;

/**
 * A request Node could not parse or finish reading, answered as Go's net/http answers one
 * (server.go conn.serve): a head over the limit gets a raw 431, any other malformed request
 * a raw 400 (wire-facts §11, headers), both with `Connection: close`; a timeout or a reset
 * gets nothing. The write side is closed first and the socket dropped a little later, so the
 * client can read the answer while it is still sending.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const busy = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  const silent = err.code === "ECONNRESET" || err.code === "ERR_HTTP_REQUEST_TIMEOUT" || !socket.writable || (busy?.headersSent ?? false);
  if (silent) {
    socket.destroy();
    return;
  }
  const status = err.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
  socket.end(`HTTP/1.1 ${status}${GO_ERROR_HEADERS}${status}`);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * The request target read as Go's url.ParseRequestURI reads it: a target starting with "//" is
 * a path, not a host (WHATWG URL parsing threw on "//" and made it a 500), and a "#" stays in
 * the path instead of cutting off the query as a fragment.
 */
export function requestUrl(target: string | undefined): URL {
  const t = (target ?? "/").replaceAll("#", "%23");
  return t.startsWith("/") ? new URL(`http://emulator.invalid${t}`) : new URL(t, "http://emulator.invalid");
}

async function handle(parts: EmulatorParts, limit: InFlightLimit, address: () => string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = requestUrl(req.url);
  // A server whose write path loses the dry-run flag (failpoints.ts).
  if (parts.settings.failpoints.has("dry-run-persists")) url.searchParams.delete("dryRun");
  const pretty = wantsPretty(req, url);
  try {
    // The request-deadline filter runs before the in-flight limit and authentication; watches skip it.
    if (!isWatch(url) && !isAdminPath(url.pathname)) checkRequestTimeout(url);
    if (!limit.admit(req, res, url)) return;
    // Authentication, then authorization, before anything else (the real filter chain); the
    // test-only admin endpoint is for system:masters only.
    const user = parts.auth
      ? await parts.auth.check(req.method ?? "GET", url, req.headersDistinct, parts.settings.admin && isAdminPath(url.pathname) ? "admin" : "api")
      : (plainNoAuthUser(req.rawHeaders) ?? (await noAuthUser(req.headersDistinct)));
    // Disabled, the admin paths fall through to the router, which knows nothing of them: 404.
    if (parts.settings.admin && isAdminPath(url.pathname)) {
      await handleAdmin({ parts, req, res, pathname: url.pathname, pretty });
      return;
    }
    if (isOpenApiPath(url.pathname) && (req.method === "GET" || req.method === "HEAD")) {
      handleOpenApi(parts.registry.all(), req, res, url);
      return;
    }
    const r = route(url.pathname, parts.registry);
    if (r.kind === "notFound") throw pathNotFound();
    if (r.kind === "resource") {
      await handleResource({ parts, req, res, url, route: r, pretty, user });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed();
    if (r.kind === "health") {
      if (!(await answerHealth(res, url, r.check, r.name, parts.healthProbes))) throw pathNotFound();
      return;
    }
    if ((r.kind === "apiVersions" || r.kind === "apiGroupList") && wantsAggregatedDiscovery(req)) {
      writeAggregatedDiscovery(req, res, parts.registry, r.kind === "apiVersions", pretty);
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
    respondError(res, req, e, pretty, parts.settings.featureGates, parts.settings.failpoints);
  }
}

/** Where the emulator stores: etcd (its client URLs) instead of memory. */
export interface EtcdStorage {
  endpoints: string[];
  prefix?: string;
  compactionIntervalMs?: number;
  requestTimeoutMs?: number;
  healthcheckTimeoutMs?: number;
  readycheckTimeoutMs?: number;
}

/**
 * `election` runs the controller-manager's controllers (namespace cleanup, the namespace
 * content) only while this replica holds the leader Lease; without it they always run and no
 * Lease is written (a single emulator on memory).
 */
export function createEmulatorServer(settings: EmulatorSettings, tls?: ServingTls, etcd?: EtcdStorage, election?: LeaderElectionConfig): EmulatorServer {
  const clock = new EmulatorClock();
  const storeOptions = {
    retentionMs: settings.retentionMs,
    now: () => clock.now(),
    maxRequestBytes: settings.maxStorageRequestBytes,
    quotaBytes: settings.storageQuotaBytes,
  };
  const strategies = defaultStrategies(settings.failpoints, settings.serviceClusterIpRange);
  // In etcd, built-in types are stored in protobuf, as a real server stores them.
  // Events carry etcd leases of --event-ttl, as a real server writes them (none when the failpoint keeps every event).
  const eventTtlSeconds = settings.failpoints.has("event-ttl-ignored") ? 0 : Math.floor(settings.eventTtlMs / 1000);
  const etcdStore = etcd ? new EtcdKeyValueStore({ ...storeOptions, ...etcd, storageVersions: storageVersionForms(strategies), eventTtlSeconds }) : undefined;
  const store: KeyValueStore = withStoreFailpoints(etcdStore ?? new MemoryKeyValueStore(storeOptions), settings.failpoints);
  const storage = new ObjectStorage(store);
  const registry = new ResourceRegistry(strategies);
  const generic = new GenericRegistry(storage, () => clock.date(), settings.failpoints);
  // Events expire a time after their last write, whichever group wrote them: both store under
  // events.k8s.io's prefix (core v1 through its storage view), which the TTL follows.
  // With leader election, only the leader sweeps (one replica at a time, as the other controllers).
  const eventTtl = new EventTtl(
    store,
    `${eventStrategy.storagePrefix}/`,
    () => clock.now(),
    settings.eventTtlMs,
    () => elector?.isLeader ?? true,
  );
  const lifecycle = new NamespaceLifecycle(generic, registry, { cleanupDelayMs: settings.namespaceCleanupDelayMs, elected: election !== undefined }, () =>
    clock.date(),
  );
  const watches: WatchRegistry = new Set();
  // A re-listed etcd mirror ends every client watch, as the cacher does when it re-initializes.
  if (etcdStore)
    etcdStore.onRelist = () => {
      for (const end of [...watches]) end();
    };
  // On etcd, tokens age with etcd's compaction and pass between replicas, as a real server's.
  const continueTokens = etcdStore ? undefined : new ContinueTokenSigner();
  const admission = new AdmissionDispatcher(storedWebhooks(storage, mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy), (name) =>
    lifecycle.namespaceLabels(name),
  );
  const capabilities = new Capabilities();
  capabilities.provide(NAMESPACE_DELETER, lifecycle);
  const auth = settings.auth ? enableAuth(generic, storage, clock, settings.adminToken, capabilities) : undefined;
  if (!auth) enableNoAuth(storage, clock, settings.adminToken, capabilities);
  const parts: EmulatorParts = {
    registry,
    storage,
    generic,
    lifecycle,
    settings,
    watches,
    clock,
    continueTokens,
    eventTtl,
    admission,
    auth,
    capabilities,
    healthProbes: etcdStore?.healthProbes,
  };
  const newNamespaceContent = () => new NamespaceContentController(generic, registry, settings.namespaceContentDelayMs, () => clock.date(), tls?.ca);
  let namespaceContent = election ? undefined : newNamespaceContent();
  const elector = election
    ? new LeaderElector(generic, election, () => clock.date(), {
        onStartedLeading: async () => {
          await lifecycle.startController();
          // Leadership may have gone while the controller listed.
          if (!settings.namespaceContent || !elector?.isLeader || namespaceContent) return;
          namespaceContent = newNamespaceContent();
          await namespaceContent.start();
        },
        onStoppedLeading: () => {
          lifecycle.stopController();
          namespaceContent?.stop();
          namespaceContent = undefined;
        },
      })
    : undefined;
  // Serves the types CustomResourceDefinitions define, as they are established and deleted.
  const crds = new CrdController(generic, registry, () => clock.date());
  // The startup writes and the controllers' first lists await the store; listen() waits for
  // them, in this order (the seeded objects' resourceVersions follow it).
  const ready = (async () => {
    // On etcd: the mirror's first list and its watch, before anything reads.
    await etcdStore?.start();
    // A storage without leases keeps every Event (failpoints.ts): the TTL never follows a write.
    if (!settings.failpoints.has("event-ttl-ignored")) await eventTtl.start();
    await seedDefaultPolicy(generic);
    await lifecycle.seed();
    if (settings.namespaceContent) await namespaceContent?.start();
    await crds.start();
    // Its Lease lives in kube-system, which the seed made.
    elector?.start();
  })();
  // A server made and never listened on must not leave a rejection unhandled; listen() rethrows it.
  ready.catch(() => {});
  // The `kubernetes` Service and its EndpointSlice name the port, so they are made once listening.
  const kubernetesService = new KubernetesServiceController(generic, registry, () => clock.date(), settings.serviceClusterIpRange, etcdStore !== undefined);

  const limit = new InFlightLimit(settings.maxRequestsInFlight);
  const options: ServerOptions = {
    // Go's server reads at most MaxHeaderBytes (1 MiB) + 4096 bytes of request head (wire-facts §11, headers).
    maxHeaderSize: MAX_HEADER_BYTES + 4096,
    // kube-apiserver's ReadHeaderTimeout (pkg/server/secure_serving.go): a client trickling its
    // headers is dropped; the whole request (body included) within --request-timeout's 60 s.
    // Neither bounds a response, so watches live on.
    headersTimeout: 32_000,
    requestTimeout: 60_000,
    // Its IdleTimeout, the time a keep-alive connection may wait for its next request.
    keepAliveTimeout: 90_000,
  };
  // HTTPS is the same HTTP/1.1 server over TLS (no HTTP/2: every client falls back to 1.1),
  // so the raw answers, CONNECT and the timeouts below hold on both.
  const server = tls ? createHttpsServer({ ...options, cert: tls.cert, key: tls.key }) : createServer(options);
  const address = (): string => {
    const a = server.address() as AddressInfo | null;
    return a ? `${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}` : "";
  };
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    res.on("error", () => {});
    req.on("error", () => {});
    closeIfBodyUnread(req, res);
    handle(parts, limit, address, req, res).catch((e: unknown) => respondError(res, req, e, false, settings.featureGates, settings.failpoints));
  };
  server.on("request", serve);
  // Node hands a CONNECT request over as a bare socket; Go serves it like any other method, so
  // it gets the handler chain's answer, and the connection closes after it.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on("finish", () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    serve(req, res);
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket));

  return {
    server,
    parts,
    listen: (host, port) =>
      ready.then(
        () =>
          new Promise((resolve, reject) => {
            server.once("error", reject);
            server.listen(port, host, () => {
              server.off("error", reject);
              kubernetesService.start(host, (server.address() as AddressInfo).port).then(() => resolve(`${tls ? "https" : "http"}://${address()}`), reject);
            });
          }),
      ),
    inFlight: () => limit.count,
    leaderIdentity: elector?.identity,
    close: async () => {
      elector?.stop();
      lifecycle.stop();
      namespaceContent?.stop();
      crds.stop();
      kubernetesService.stop();
      eventTtl.stop();
      for (const end of [...watches]) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      etcdStore?.close();
    },
  };
}
