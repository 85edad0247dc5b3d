import * as webhooks from "../../services/webhooks";
import {
  AttemptList,
  DeliveryIdParams,
  DeliveryList,
  DeliveryListQuery,
  DeliveryView,
  EventTypeList,
  RecoverInput,
  RecoverJobList,
  RecoverJobParams,
  RecoverJobView,
  RegisteredWebhook,
  RegisterWebhookInput,
  RotatedSecret,
  RotateSecretInput,
  WebhookIdParams,
  WebhookList,
  WebhookView,
  webhookMetrics,
} from "../../services/webhooks";
import { route } from "../route";
import type { RouteDef } from "../types";

const auth = { scope: "webhook_manage" } as const;
const tag = "Webhooks";

// Registered with the routes so the operator's metrics show webhook figures whichever process sends.
webhookMetrics();

/** /v1/admin/webhooks*: receivers, their deliveries and replay (scope `webhook_manage`). */
export const webhookRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/webhooks/event-types",
    auth,
    tag,
    summary:
      "The event catalog: every event the service sends, when it fires, and the JSON Schema of its payload (the `payload` of the delivery envelope).",
    response: EventTypeList,
    handler: async () => webhooks.eventTypes(),
  }),
  route({
    method: "GET",
    path: "/v1/admin/webhooks",
    auth,
    tag,
    summary: "The organization's webhooks, deactivated ones included; never their signing secrets.",
    response: WebhookList,
    handler: ({ ctx }) => webhooks.listWebhooks(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/admin/webhooks",
    auth,
    tag,
    summary:
      'Registers a receiver: a public HTTPS URL (a host resolving to a private, loopback, link-local or otherwise internal address is refused, now and at every delivery) and event names or ["*"] for every event including later ones. Unknown names are accepted and never fire. The signing secret is returned once.',
    body: RegisterWebhookInput,
    response: RegisteredWebhook,
    successStatus: 201,
    errors: ["VALIDATION_ERROR", "CONFLICT"],
    examples: { request: { url: "https://hooks.acme.example/bind-identity", events: ["account.created", "identity.bound"] } },
    handler: ({ ctx, body }) => webhooks.registerWebhook(ctx, body),
  }),
  route({
    method: "DELETE",
    path: "/v1/admin/webhooks/{id}",
    auth,
    tag,
    summary:
      "Deactivates a webhook; it and its delivery history are kept, and its waiting deliveries end as dead. Deactivating again answers the first deactivation.",
    params: WebhookIdParams,
    response: WebhookView,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    handler: ({ ctx, params }) => webhooks.deactivateWebhook(ctx, params.id),
  }),
  route({
    method: "POST",
    path: "/v1/admin/webhooks/{id}/rotate-secret",
    auth,
    tag,
    summary:
      "Issues a new signing secret, shown once. The old secret keeps signing beside it for `overlapHours` (default 24): each delivery then carries both signatures in X-BI-Signature, space-separated, so receivers holding either verify while you roll the new one out.",
    params: WebhookIdParams,
    body: RotateSecretInput,
    response: RotatedSecret,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
    examples: { request: { overlapHours: 24 } },
    handler: ({ ctx, params, body }) => webhooks.rotateWebhookSecret(ctx, params.id, body),
  }),
  route({
    method: "POST",
    path: "/v1/admin/webhooks/{id}/recover",
    auth,
    tag,
    summary:
      "Queues one job that sends every failed or dead delivery of this webhook created in [since, until) again (until defaults to now), one at a time in event order, with the same delivery ids; delivered ones are not touched. The same request again answers the same job. 409 recover_running while another range of this webhook is being recovered, webhook_inactive for a deactivated or disabled webhook.",
    params: WebhookIdParams,
    body: RecoverInput,
    response: RecoverJobView,
    successStatus: 202,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
    examples: { request: { since: "2026-11-24T09:00:00Z", until: "2026-11-25T09:00:00Z" } },
    handler: ({ ctx, params, body }) => webhooks.requestRecover(ctx, params.id, body),
  }),
  route({
    method: "GET",
    path: "/v1/admin/webhooks/{id}/recover",
    auth,
    tag,
    summary: "The webhook's recent recover jobs (at most 20), newest first, with their progress.",
    params: WebhookIdParams,
    response: RecoverJobList,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    handler: ({ ctx, params }) => webhooks.listRecoverJobs(ctx, params.id),
  }),
  route({
    method: "GET",
    path: "/v1/admin/webhooks/{id}/recover/{jobId}",
    auth,
    tag,
    summary: "One recover job's progress: total, done, delivered and state (queued, running, completed).",
    params: RecoverJobParams,
    response: RecoverJobView,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    handler: ({ ctx, params }) => webhooks.getRecoverJob(ctx, params.id, params.jobId),
  }),
  route({
    method: "GET",
    path: "/v1/admin/webhooks/deliveries",
    auth,
    tag,
    summary: "Recent deliveries of the organization's webhooks, newest first, with status, attempts and the last error; filter by status.",
    query: DeliveryListQuery,
    response: DeliveryList,
    errors: ["VALIDATION_ERROR"],
    handler: ({ ctx, query }) => webhooks.listDeliveries(ctx, query),
  }),
  route({
    method: "GET",
    path: "/v1/admin/webhooks/deliveries/{id}/attempts",
    auth,
    tag,
    summary:
      "A delivery's attempts, newest first: outcome, HTTP status, latency and the first 2 KB of the receiver's answer (secrets, signatures and email addresses redacted; never kept for a redirect or when no answer came).",
    params: DeliveryIdParams,
    response: AttemptList,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    handler: ({ ctx, params }) => webhooks.listAttempts(ctx, params.id),
  }),
  route({
    method: "POST",
    path: "/v1/admin/webhooks/deliveries/{id}/replay",
    auth,
    tag,
    summary:
      "Queues a failed or dead delivery again (pending, attempts 0): the same stored body and delivery id, signed with a fresh timestamp. 409 already_delivered, payload_unavailable (body past retention) or webhook_inactive.",
    params: DeliveryIdParams,
    response: DeliveryView,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, params }) => webhooks.replayDelivery(ctx, params.id),
  }),
];
