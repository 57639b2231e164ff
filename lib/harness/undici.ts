/**
 * The parts of undici the harness uses, loaded without undici's index (issue #18): the index
 * requires all of undici (fetch, WebSocket, EventSource, cache stores, mocks, interceptors: 111
 * CommonJS modules, about 170 ms of CPU), and `tollgate run` pays that in its main thread and
 * again in each vitest worker; the dispatchers and the request API are about a third of it.
 * The same classes as the index exports, wired as the index wires them.
 */
import { createRequire } from "node:module";
import type * as Undici from "undici";

const load = createRequire(import.meta.url);

export const DispatcherClass = load("undici/lib/dispatcher/dispatcher") as typeof Undici.Dispatcher;
export const Agent = load("undici/lib/dispatcher/agent") as typeof Undici.Agent;
export const ProxyAgent = load("undici/lib/dispatcher/proxy-agent") as typeof Undici.ProxyAgent;
const api = load("undici/lib/api") as { request: (this: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData> };
// As undici's index: every dispatcher gets request, stream, pipeline, connect and upgrade (a proxy agent's tunnel uses connect).
Object.assign(DispatcherClass.prototype, api);

/** undici's `request(url, options)` for options that name their dispatcher, as its index makes it. */
export function request(
  url: string,
  opts: Omit<Undici.Dispatcher.RequestOptions, "origin" | "path" | "method"> & { method?: Undici.Dispatcher.HttpMethod; dispatcher: Undici.Dispatcher },
): Promise<Undici.Dispatcher.ResponseData> {
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError(`invalid url ${url}: only http and https`);
  const { dispatcher, ...rest } = opts;
  return api.request.call(dispatcher, {
    ...rest,
    origin: u.origin,
    path: u.search ? `${u.pathname}${u.search}` : u.pathname,
    method: rest.method || (rest.body ? "PUT" : "GET"),
  });
}
