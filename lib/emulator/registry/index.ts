/** The served types, in the order discovery lists their group-versions. */
import type { ResourceStrategy } from "./generic/strategy.js";
import { configMapStrategy } from "./core/configmap/strategy.js";
import { coreEventStrategy } from "./events/core-view.js";
import { crdStrategy } from "./apiextensions/crd-strategy.js";
import { eventStrategy } from "./events/strategy.js";
import { namespaceStrategy } from "./core/namespace/strategy.js";
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from "./admissionregistration/strategy.js";

export function defaultStrategies(): ResourceStrategy[] {
  return [namespaceStrategy, configMapStrategy, coreEventStrategy, eventStrategy, mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy, crdStrategy];
}

export { configMapStrategy, coreEventStrategy, crdStrategy, eventStrategy, mutatingWebhookConfigurationStrategy, namespaceStrategy, validatingWebhookConfigurationStrategy };
