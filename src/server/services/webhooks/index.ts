export { dispatchOutboxEvents } from "./dispatch";
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
