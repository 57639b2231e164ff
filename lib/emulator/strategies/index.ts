/** The served types, in the order discovery lists their group-versions. */
import type { ResourceStrategy } from "../resources.js";
import { configMapStrategy } from "./configmap.js";
import { coreEventStrategy } from "./core-event.js";
import { crdStrategy } from "./crd.js";
import { eventStrategy } from "./event.js";
import { namespaceStrategy } from "./namespace.js";
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from "./webhook-configurations.js";

export function defaultStrategies(): ResourceStrategy[] {
  return [namespaceStrategy, configMapStrategy, coreEventStrategy, eventStrategy, mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy, crdStrategy];
}

export { configMapStrategy, coreEventStrategy, crdStrategy, eventStrategy, mutatingWebhookConfigurationStrategy, namespaceStrategy, validatingWebhookConfigurationStrategy };
