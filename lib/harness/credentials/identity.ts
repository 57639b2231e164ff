/**
 * A target as another identity: the same server, trust and route (CA, server name, proxy), none
 * of the run's own identity (token, basic auth, client certificate, token file, oidc, exec
 * plugin, impersonation). For the suites' clients that act as a service account, a made-up
 * token, or nobody: spreading the run's credentials and replacing the token would keep an exec
 * plugin's client certificate, or the kubeconfig's impersonation, on requests meant to be someone else's.
 */
import type { Target, TargetCredentials } from "../target.js";

export function asIdentity(target: Target, token: string | undefined): Target {
  const c = target.credentials;
  const route: TargetCredentials = {
    ...(c.ca !== undefined ? { ca: c.ca } : {}),
    ...(c.insecureSkipTlsVerify ? { insecureSkipTlsVerify: true } : {}),
    ...(c.tlsServerName ? { tlsServerName: c.tlsServerName } : {}),
    ...(c.proxyUrl ? { proxyUrl: c.proxyUrl } : {}),
    ...(c.disableCompression ? { disableCompression: true } : {}),
  };
  return { ...target, credentials: token === undefined ? route : { ...route, token } };
}
