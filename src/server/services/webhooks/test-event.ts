import { randomUUID } from "node:crypto";
import type { Webhook } from "@/generated/prisma/client.ts";
import type { WebhookEventName, WebhookPayloads } from "../../../lib/webhook-events";
import type { ServiceContext } from "../../context";
import { conflict, notFound } from "../../errors";
import { appendAudit } from "../audit";
import { envelopeBody } from "./dispatch";
import { deliveryView } from "./registry";

const BINDING = {
  accountDid: "did:antelope:sandbox:testaccount1",
  personDid: "did:web:example.com:people:00000000-0000-4000-8000-000000000000",
  bindingVcHash: "0".repeat(64),
};

/** A payload of each event type, valid against its catalog schema, naming nobody real. */
export const SAMPLE_PAYLOADS: { [E in WebhookEventName]: WebhookPayloads[E] } = {
  "account.created": { accountDid: "did:antelope:sandbox:testaccount1", lifecycle: "provisional" },
  "kyc.approved": { personDid: "did:web:example.com:people:00000000-0000-4000-8000-000000000000", level: "basic" },
  "identity.bound": {
    accountDid: "did:antelope:sandbox:testaccount1",
    personDid: "did:web:example.com:people:00000000-0000-4000-8000-000000000000",
    bindingVcHash: "0".repeat(64),
  },
  "identity.unbound": { ...BINDING, reason: "Sample: the account was sold" },
  "identity.binding_suspended": { ...BINDING, reason: "key_changed" },
  "identity.binding_reinstated": { ...BINDING, reason: "key_changed" },
  "account.unlocked": { accountDid: "did:antelope:sandbox:testaccount1" },
  "aml.sanctions_hit": { personDid: "did:web:example.com:people:00000000-0000-4000-8000-000000000000", severity: "low" },
  "kyc.duplicate_person": {
    personDid: "did:web:example.com:people:00000000-0000-4000-8000-000000000000",
    match: "document",
    otherPersonDids: ["did:web:example.com:people:00000000-0000-4000-8000-000000000001"],
    createRefused: false,
  },
  "person.erased": { personDid: "did:web:example.com:people:00000000-0000-4000-8000-000000000000", erasedAt: "2026-01-01T00:00:00.000Z" },
  "attestation.published": {
    accountDid: "did:antelope:sandbox:testaccount1",
    status: "revoked",
    actions: ["revoke"],
    transactionId: "0".repeat(64),
  },
};

/**
 * Queues a test delivery of `event` to one webhook, whatever it subscribes to: a sample payload
 * in the usual envelope with `"test": true` beside it (inside the signature, so a receiver can
 * trust it and skip the work), sent, signed and retried like any other delivery.
 */
export async function sendTestEvent(ctx: ServiceContext, webhookId: string, event: WebhookEventName) {
  return ctx.db.$transaction(async (tx) => {
    const [hook] = await tx.$queryRaw<Webhook[]>`
      SELECT * FROM webhooks WHERE id = ${webhookId}::uuid AND "orgId" = ${ctx.org.id}::uuid FOR SHARE`;
    if (!hook) throw notFound("The webhook");
    if (!hook.active) throw conflict("webhook_inactive", "The webhook is not active; enable it before sending it a test event.");
    const id = randomUUID();
    const now = ctx.now();
    const body = envelopeBody({ deliveryId: id, event, orgId: ctx.org.id, payload: SAMPLE_PAYLOADS[event], createdAt: now, test: true });
    // A test has no outbox event; a fresh id keeps (webhook, event) unique.
    const delivery = await tx.webhookDelivery.create({
      data: { id, orgId: ctx.org.id, webhookId, eventId: randomUUID(), event, eventAt: now, body, nextAttemptAt: now },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      { action: "webhook.test_sent", subjectType: "webhook", subject: webhookId, data: { deliveryId: id, event } },
    );
    return deliveryView(delivery);
  });
}
