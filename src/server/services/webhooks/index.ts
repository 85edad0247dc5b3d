export { dispatchOutboxEvents } from "./dispatch";
export { EVENT_PAYLOADS, EventTypeList, eventTypes } from "./events.schema";
export { webhookMetrics } from "./metrics";
export { deactivateWebhook, listDeliveries, listWebhooks, registerWebhook, replayDelivery, rotateWebhookSecret } from "./registry";
export { purgeWebhookHistory } from "./retention";
export {
  ConsoleRegisterWebhookInput,
  DeliveryIdParams,
  DeliveryList,
  DeliveryListQuery,
  DeliveryView,
  RegisteredWebhook,
  RegisterWebhookInput,
  RotatedSecret,
  RotateSecretInput,
  WebhookIdParams,
  WebhookList,
  WebhookView,
} from "./webhooks.schema";
export { createDeliveryWorker } from "./worker";
