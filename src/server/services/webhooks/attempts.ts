import type { WebhookAttempt } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { notFound } from "../../errors";

/** Attempts shown per delivery: more than the automatic ones (8 by default) leaves room for replays. */
const MAX_ATTEMPTS_SHOWN = 50;

export const attemptView = (a: WebhookAttempt) => ({
  attempt: a.attempt,
  at: a.at.toISOString(),
  outcome: a.outcome,
  statusCode: a.statusCode,
  latencyMs: a.latencyMs,
  error: a.error,
  answer: a.answer,
});

/** A delivery's attempts, newest first, with what each receiver answered. */
export async function listAttempts(ctx: ServiceContext, deliveryId: string) {
  const delivery = await ctx.db.webhookDelivery.findFirst({ where: { id: deliveryId, orgId: ctx.org.id }, select: { id: true } });
  if (!delivery) throw notFound("The delivery");
  const rows = await ctx.db.webhookAttempt.findMany({
    where: { deliveryId, orgId: ctx.org.id },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: MAX_ATTEMPTS_SHOWN,
  });
  return { deliveryId, attempts: rows.map(attemptView) };
}
