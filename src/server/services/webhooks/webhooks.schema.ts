import { z } from "zod";
import { WEBHOOK_EVENT_NAMES, type WebhookEventName } from "../../../lib/webhook-events";

/** Event names are not checked against the known list (an unknown one is kept and never fires). */
const EventName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*)$/, "must be an event name such as account.created, or *");

export const RegisterWebhookInput = z.strictObject({
  /** Public HTTPS URL; re-checked (resolved again) at every delivery attempt. */
  url: z.string().trim().min(1).max(2048),
  /** Event names, or ["*"] for every event including ones added later. */
  events: z.array(EventName).min(1).max(50),
});
export type RegisterWebhookInput = z.output<typeof RegisterWebhookInput>;

/**
 * The console offers the event catalog to pick from, so there a name outside it is a typo
 * (`acount.created`) and is refused; /v1 keeps accepting any well-formed name (docs/api/guides/webhooks.md).
 */
export const ConsoleRegisterWebhookInput = RegisterWebhookInput.extend({
  events: z
    .array(z.enum(["*", ...WEBHOOK_EVENT_NAMES] as [string, ...string[]], { error: "is not an event the service sends" }))
    .min(1, "pick at least one event")
    .max(50),
});

export const WebhookIdParams = z.object({ id: z.uuid() });

export const RotateSecretInput = z.strictObject({
  /** How long the old secret keeps signing beside the new one (hours, 0 to 168; default 24). */
  overlapHours: z.int().min(0).max(168).default(24),
});
export type RotateSecretInput = z.output<typeof RotateSecretInput>;
export const DeliveryIdParams = z.object({ id: z.uuid() });

export const WebhookView = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  /** Whether deliveries are sent (false when disabled or deactivated). */
  active: z.boolean(),
  /**
   * active; failing (the attempts since `failingSince` all failed; disabled once that lasts
   * WEBHOOK_DISABLE_AFTER_HOURS); disabled (off but kept: events are recorded as dead deliveries
   * to recover once enabled); deactivated (deleted, for good).
   */
  state: z.enum(["active", "failing", "disabled", "deactivated"]),
  createdAt: z.iso.datetime(),
  deactivatedAt: z.iso.datetime().nullable(),
  disabledAt: z.iso.datetime().nullable(),
  disabledReason: z.enum(["failing", "manual"]).nullable(),
  /** The last attempt the receiver answered with a 2xx. */
  lastSuccessAt: z.iso.datetime().nullable(),
  /** The first failed attempt since the last success. */
  failingSince: z.iso.datetime().nullable(),
  /** While a rotation's overlap lasts: until when the previous secret still signs. */
  previousSecretValidUntil: z.iso.datetime().nullable(),
});

export const RegisteredWebhook = WebhookView.extend({
  /** HMAC-SHA256 key of X-BI-Signature, used as this exact string; shown in this answer only. */
  secret: z.string(),
  warning: z.string(),
});

export const WebhookList = z.object({
  webhooks: z.array(
    WebhookView.extend({
      /** Deliveries created in the last 7 days, by status. */
      recent: z.object({
        delivered: z.int(),
        failed: z.int(),
        dead: z.int(),
        pending: z.int(),
        /** delivered ÷ (delivered + failed + dead); null with none of those. */
        successRate: z.number().min(0).max(1).nullable(),
      }),
    }),
  ),
});

export const RotatedSecret = z.object({
  id: z.uuid(),
  /** The new signing secret, shown in this answer only. */
  secret: z.string(),
  /** Until when deliveries also carry a signature by the previous secret (null: not at all). */
  previousSecretValidUntil: z.iso.datetime().nullable(),
  warning: z.string(),
});

export const DeliveryStatus = z.enum(["pending", "failed", "delivered", "dead"]);

export const DeliveryListQuery = z.object({
  status: DeliveryStatus.optional(),
  limit: z.coerce.number<string>().pipe(z.int().min(1).max(100)).default(50),
});
export type DeliveryListQuery = z.output<typeof DeliveryListQuery>;

export const DeliveryView = z.object({
  id: z.uuid(),
  webhookId: z.uuid(),
  eventId: z.uuid(),
  event: z.string(),
  status: DeliveryStatus,
  attempts: z.int(),
  lastError: z.string().nullable(),
  lastStatusCode: z.int().nullable(),
  /** When the next automatic attempt is due (pending or failed only). */
  nextAttemptAt: z.iso.datetime().nullable(),
  deliveredAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const DeliveryList = z.object({ deliveries: z.array(DeliveryView) });

export const AttemptView = z.object({
  /** 1 for the first attempt; a replay or recover starts again at 1. */
  attempt: z.int(),
  at: z.iso.datetime(),
  /** The delivery's status this attempt left it in. */
  outcome: DeliveryStatus,
  /** The receiver's HTTP status; null when no answer came (timeout, refused connection or address, TLS error). */
  statusCode: z.int().nullable(),
  latencyMs: z.int(),
  error: z.string().nullable(),
  /**
   * The first 2 KB of the answer's body as text, with secrets, signatures and email addresses
   * replaced by "[redacted]"; null for a redirect, an empty body or no answer.
   */
  answer: z.string().nullable(),
});

export const AttemptList = z.object({ deliveryId: z.uuid(), attempts: z.array(AttemptView) });

export const TestEventInput = z.strictObject({
  /** An event type of the catalog (GET /v1/admin/webhooks/event-types). */
  event: z.enum(WEBHOOK_EVENT_NAMES as [WebhookEventName, ...WebhookEventName[]], { error: "is not an event the service sends" }),
});

export const EnabledWebhook = z.object({
  webhook: WebhookView,
  /**
   * Where a recover (POST /v1/admin/webhooks/{id}/recover) should start to send what failed or
   * was missed while the endpoint was failing and disabled; null when it was not disabled.
   */
  suggestedRecoverSince: z.iso.datetime().nullable(),
});
