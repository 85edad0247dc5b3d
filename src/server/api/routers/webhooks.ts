import { z } from "zod";
import * as webhooks from "../../services/webhooks";
import {
  ConsoleRegisterWebhookInput,
  DeliveryIdParams,
  DeliveryListQuery,
  RecoverInput,
  RecoverJobParams,
  RotateSecretInput,
  TestEventInput,
  WebhookIdParams,
} from "../../services/webhooks";
import { consoleProcedure, router } from "../trpc";

/** Outbound webhooks: operators watch deliveries and replay them; admins register and deactivate endpoints. */
export const webhooksRouter = router({
  list: consoleProcedure("operator").query(({ ctx }) => webhooks.listWebhooks(ctx.svc)),
  deliveries: consoleProcedure("operator")
    .input(DeliveryListQuery)
    .query(({ ctx, input }) => webhooks.listDeliveries(ctx.svc, input)),
  attempts: consoleProcedure("operator")
    .input(DeliveryIdParams)
    .query(({ ctx, input }) => webhooks.listAttempts(ctx.svc, input.id)),
  replay: consoleProcedure("operator")
    .input(DeliveryIdParams)
    .mutation(({ ctx, input }) => webhooks.replayDelivery(ctx.svc, input.id)),
  // Names are picked from the catalog here, so one outside it is refused (/v1 accepts any well-formed name).
  register: consoleProcedure("admin")
    .input(ConsoleRegisterWebhookInput)
    .mutation(({ ctx, input }) => webhooks.registerWebhook(ctx.svc, input)),
  rotateSecret: consoleProcedure("admin")
    .input(z.object({ id: WebhookIdParams.shape.id, body: RotateSecretInput }))
    .mutation(({ ctx, input }) => webhooks.rotateWebhookSecret(ctx.svc, input.id, input.body)),
  recoverJobs: consoleProcedure("operator")
    .input(WebhookIdParams)
    .query(({ ctx, input }) => webhooks.listRecoverJobs(ctx.svc, input.id)),
  recoverJob: consoleProcedure("operator")
    .input(RecoverJobParams)
    .query(({ ctx, input }) => webhooks.getRecoverJob(ctx.svc, input.id, input.jobId)),
  // Like replay, recovering re-sends what was already meant to be delivered: an operator's task.
  recover: consoleProcedure("operator")
    .input(z.object({ id: WebhookIdParams.shape.id, body: RecoverInput }))
    .mutation(({ ctx, input }) => webhooks.requestRecover(ctx.svc, input.id, input.body)),
  sendTest: consoleProcedure("operator")
    .input(z.object({ id: WebhookIdParams.shape.id, body: TestEventInput }))
    .mutation(({ ctx, input }) => webhooks.sendTestEvent(ctx.svc, input.id, input.body.event)),
  disable: consoleProcedure("admin")
    .input(WebhookIdParams)
    .mutation(({ ctx, input }) => webhooks.disableWebhook(ctx.svc, input.id)),
  enable: consoleProcedure("admin")
    .input(WebhookIdParams)
    .mutation(({ ctx, input }) => webhooks.enableWebhook(ctx.svc, input.id)),
  deactivate: consoleProcedure("admin")
    .input(WebhookIdParams)
    .mutation(({ ctx, input }) => webhooks.deactivateWebhook(ctx.svc, input.id)),
});
