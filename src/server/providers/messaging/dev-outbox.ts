import { z } from "zod";
import type { DevOutboxMessage } from "@/generated/prisma/client.ts";
import type { DbOrTx } from "../../db/client";
import { logger } from "../../log";
import { type EmailChannel, maskAddress, type SmsChannel } from "./types";

/**
 * Where messages go when no provider is configured outside production: a table a developer
 * reads with `npm run outbox`. The log line says a message is waiting, never what it says.
 */
export const DEV_OUTBOX_PROVIDER = "dev-outbox";

async function store(db: DbOrTx, row: { channel: "email" | "phone"; to: string; subject?: string; body: string; orgId?: string | null }) {
  const saved = await db.devOutboxMessage.create({
    data: { channel: row.channel, to: row.to, subject: row.subject ?? null, body: row.body, orgId: row.orgId ?? null },
    select: { id: true },
  });
  logger().info(
    { provider: DEV_OUTBOX_PROVIDER, channel: row.channel, outboxId: saved.id, toMasked: maskAddress(row.to), orgId: row.orgId ?? null },
    "message stored in the dev outbox; read it with `npm run outbox`",
  );
  return { id: saved.id, provider: DEV_OUTBOX_PROVIDER };
}

export const outboxEmail = (db: DbOrTx): EmailChannel => ({
  sendEmail: (msg) => store(db, { channel: "email", to: msg.to, subject: msg.subject, body: msg.text, orgId: msg.orgId }),
});

export const outboxSms = (db: DbOrTx): SmsChannel => ({
  sendSms: (msg) => store(db, { channel: "phone", to: msg.to, body: msg.text, orgId: msg.orgId }),
});

export const OutboxQuery = z.object({
  to: z.string().trim().min(1).max(320).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(20),
});
export type OutboxQuery = z.input<typeof OutboxQuery>;

export type OutboxEntry = Pick<DevOutboxMessage, "id" | "orgId" | "channel" | "to" | "subject" | "body" | "createdAt">;

/** Newest first; `to` matches the whole address, ignoring case. */
export async function listOutbox(db: DbOrTx, query: OutboxQuery = {}): Promise<OutboxEntry[]> {
  const q = OutboxQuery.parse(query);
  return db.devOutboxMessage.findMany({
    where: q.to ? { to: { equals: q.to, mode: "insensitive" } } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit,
    select: { id: true, orgId: true, channel: true, to: true, subject: true, body: true, createdAt: true },
  });
}
