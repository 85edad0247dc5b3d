export { listAttempts } from "./attempts";
export { dispatchOutboxEvents } from "./dispatch";
export { disableWebhook, enableWebhook } from "./enablement";
export { EVENT_PAYLOADS, EventTypeList, eventTypes } from "./events.schema";
export { checkFailingWebhooks } from "./failing-check";
export { webhookMetrics } from "./metrics";
export { getRecoverJob, listRecoverJobs, requestRecover } from "./recover";
export { RecoverInput, RecoverJobList, RecoverJobParams, RecoverJobView } from "./recover.schema";
export { runRecoverJobs } from "./recover-runner";
export { deactivateWebhook, listDeliveries, listWebhooks, registerWebhook, replayDelivery, rotateWebhookSecret } from "./registry";
export { purgeWebhookHistory } from "./retention";
export { sendTestEvent } from "./test-event";
export {
  AttemptList,
  ConsoleRegisterWebhookInput,
  DeliveryIdParams,
  DeliveryList,
  DeliveryListQuery,
  DeliveryView,
  EnabledWebhook,
  RegisteredWebhook,
  RegisterWebhookInput,
  RotatedSecret,
  RotateSecretInput,
  TestEventInput,
  WebhookIdParams,
  WebhookList,
  WebhookView,
} from "./webhooks.schema";
export { createDeliveryWorker } from "./worker";
