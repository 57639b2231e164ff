/**
 * What a server offers the REST overrides beyond the request itself: an authorizer, a token
 * issuer… A registry folder that needs one names it here by a typed key and the interface it
 * defines (registry/authorization/authorizer.ts, registry/core/serviceaccount/token-request.ts);
 * the layer that has it (auth/, when authentication is on) provides it as the server is built.
 * So a registry override calls into auth without importing it, and the endpoints hand the set
 * over without knowing what is in it.
 */

/** The key of one capability, typed by what it provides. */
export class Capability<T> {
  // Never set: it only carries T, so a key for one interface is not taken for another's.
  declare private readonly provides: T;

  constructor(readonly name: string) {}
}

/** The capabilities an override can ask for; absent ones are undefined (auth off: no authorizer). */
export interface CapabilityLookup {
  get<T>(key: Capability<T>): T | undefined;
}

/** One server's capabilities, filled as it is built. */
export class Capabilities implements CapabilityLookup {
  private readonly provided = new Map<Capability<unknown>, unknown>();

  provide<T>(key: Capability<T>, value: T): void {
    this.provided.set(key, value);
  }

  get<T>(key: Capability<T>): T | undefined {
    // Set only by provide() under the same key, so the value is a T.
    return this.provided.get(key) as T | undefined;
  }
}
