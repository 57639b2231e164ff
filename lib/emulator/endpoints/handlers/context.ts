/** What every resource handler gets: the emulator's parts and the parsed request. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AdmissionDispatcher } from "../../admission/dispatcher.js";
import type { EmulatorClock } from "../../apimachinery/clock.js";
import type { User } from "../../apimachinery/user.js";
import type { AccessControl } from "../../auth/access-control.js";
import type { EmulatorSettings } from "../../options.js";
import type { NamespaceLifecycle } from "../../registry/core/namespace/lifecycle.js";
import type { CapabilityLookup } from "../../registry/generic/capabilities.js";
import type { GenericRegistry } from "../../registry/generic/registry.js";
import type { ResourceRegistry } from "../../registry/generic/strategy.js";
import type { ContinueTokenSigner } from "../../storage/continue-token.js";
import type { EventTtl } from "../../storage/event-ttl.js";
import type { ObjectStorage } from "../../storage/object-storage.js";
import type { Negotiated } from "../negotiation.js";
import type { ResourceRoute } from "../router.js";

/** Closers of open watches, so close() can end them all. */
export type WatchRegistry = Set<() => void>;

export interface EmulatorParts {
  readonly registry: ResourceRegistry;
  readonly storage: ObjectStorage;
  readonly generic: GenericRegistry;
  readonly lifecycle: NamespaceLifecycle;
  readonly settings: EmulatorSettings;
  readonly watches: WatchRegistry;
  /** The one clock of the emulator (advanced by the admin endpoint). */
  readonly clock: EmulatorClock;
  /** Stamps this emulator's continue tokens with their issue time. */
  /** Absent on etcd (storage/reads.ts ContinueTokens). */
  readonly continueTokens: ContinueTokenSigner | undefined;
  /** Deletes events a time after their last write (run by the admin clock advance too). */
  readonly eventTtl: EventTtl;
  /** Calls the registered admission webhooks on writes (handlers/admission.ts). */
  readonly admission: AdmissionDispatcher;
  /** Authentication and authorization, when the emulator is started with auth on (auth/*). */
  readonly auth?: AccessControl;
  /** What the REST overrides may use besides the request (registry/generic/capabilities.ts): auth's authorizer and tokens when it is on. */
  readonly capabilities: CapabilityLookup;
  /** Health checks that can fail (on etcd: `etcd`, `etcd-readiness`), by check name. */
  readonly healthProbes?: Readonly<Partial<Record<string, () => Promise<string | undefined>>>>;
}

/** A request on a resource path, as routed. */
export interface ResourceRequest {
  readonly parts: EmulatorParts;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly route: ResourceRoute;
  readonly pretty: boolean;
  /** Who makes the request, when the emulator authenticates (auth on). */
  readonly user?: User;
}

/** A resource request after output negotiation: what every verb handler gets. */
export interface RequestContext extends ResourceRequest {
  /** The encoding and representation (object, Table, PartialObjectMetadata…) of the answer. */
  readonly negotiated: Negotiated;
  /** Whether a large answer may be gzipped (asked for, and the gate is on). */
  readonly gzip: boolean;
}
