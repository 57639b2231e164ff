/**
 * The built-in served types, in the order discovery lists their group-versions: the registration
 * lists. A new type is its own folder plus one entry here: its discovery entries, Table
 * convertor, field-manager schema, decoding facts and REST overrides come from its strategy
 * (what still lies outside, such as protobuf messages and the default roles, is listed in
 * lib/emulator/README.md).
 */

import { type Failpoints, NO_FAILPOINTS } from "../failpoints.js";
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from "./admissionregistration/strategy.js";
import { crdStrategy } from "./apiextensions/crd-strategy.js";
import { REVIEW_STRATEGIES } from "./authorization/reviews.js";
import { leaseStrategy } from "./coordination/strategy.js";
import { configMapStrategy } from "./core/configmap/strategy.js";
import { namespaceStrategy } from "./core/namespace/strategy.js";
import { type ServiceRange, serviceRange } from "./core/service/cluster-ip.js";
import { serviceStrategy, serviceStrategyFor } from "./core/service/strategy.js";
import { serviceAccountStrategy } from "./core/serviceaccount/strategy.js";
import { endpointSliceStrategy } from "./discovery/strategy.js";
import { coreEventStrategy, coreEventStrategyWith } from "./events/core-view.js";
import { eventStrategy, eventStrategyWith } from "./events/strategy.js";
import type { ResourceStrategy } from "./generic/strategy.js";
import { RBAC_STRATEGIES } from "./rbac/strategy.js";

/** The types every server serves, Services from the server's range; failpoints (failpoints.ts) may make some of them wrong on purpose. */
export function defaultStrategies(failpoints: Failpoints = NO_FAILPOINTS, services: ServiceRange = serviceRange()): ResourceStrategy[] {
  return [
    namespaceStrategy,
    configMapStrategy,
    serviceStrategyFor(services),
    coreEventStrategyWith(failpoints),
    // A real server serves ServiceAccounts and RBAC whatever its authorizer; only the checks need auth on.
    serviceAccountStrategy,
    eventStrategyWith(failpoints),
    // Served whatever the authorizer (auth off: AlwaysAllow), as a real server serves them.
    ...REVIEW_STRATEGIES,
    // Before admissionregistration.k8s.io, as in a real server's /apis.
    ...RBAC_STRATEGIES,
    mutatingWebhookConfigurationStrategy,
    validatingWebhookConfigurationStrategy,
    crdStrategy,
    leaseStrategy,
    endpointSliceStrategy,
  ];
}

export {
  configMapStrategy,
  coreEventStrategy,
  crdStrategy,
  endpointSliceStrategy,
  eventStrategy,
  mutatingWebhookConfigurationStrategy,
  namespaceStrategy,
  serviceStrategy,
  validatingWebhookConfigurationStrategy,
};
