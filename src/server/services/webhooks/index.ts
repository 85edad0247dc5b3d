export { dispatchOutboxEvents } from "./dispatch";
export { EVENT_PAYLOADS, EventTypeList, eventTypes } from "./events.schema";
export { webhookMetrics } from "./metrics";
export { deactivateWebhook, listDeliveries, listWebhooks, registerWebhook, replayDelivery } from "./registry";
export { purgeWebhookHistory } from "./retention";
export {
  ConsoleRegisterWebhookInput,
  DeliveryIdParams,
  DeliveryList,
  DeliveryListQuery,
  DeliveryView,
  RegisteredWebhook,
  RegisterWebhookInput,
  WebhookIdParams,
  WebhookList,
  WebhookView,
} from "./webhooks.schema";
export { createDeliveryWorker } from "./worker";
