import { env, publicUrl } from "@/env";
import type { Webhook } from "@/generated/prisma/client.ts";
import type { Db, Tx } from "../../db/client";
import { logger } from "../../log";
import { messaging } from "../../providers/messaging";
import { appendAudit } from "../audit";
import { disableInTx } from "./enablement";

const ACTOR = "system:webhook-health";

type Notice = { kind: "warning" | "disabled"; hook: Webhook; disableAt: Date };

async function lockFailing(tx: Tx, before: Date, opts: { notNotified: boolean; orgId: string | null; limit: number }) {
  return tx.$queryRaw<Webhook[]>`
    SELECT * FROM webhooks
    WHERE active AND "failingSince" <= ${before.toISOString()}::timestamptz AT TIME ZONE 'UTC'
      AND (NOT ${opts.notNotified} OR "failingNoticeAt" IS NULL)
      AND (${opts.orgId}::uuid IS NULL OR "orgId" = ${opts.orgId}::uuid)
    ORDER BY "orgId", id
    LIMIT ${opts.limit}
    FOR UPDATE SKIP LOCKED`;
}

/**
 * Finds active endpoints whose attempts have all failed since `failingSince`: past half of
 * WEBHOOK_DISABLE_AFTER_HOURS their organization's owners and admins are told once when it will
 * be disabled; past all of it, it is disabled (reason "failing") and they are told again. The
 * marks and audit entries commit before any email goes out, and rows are claimed with SKIP
 * LOCKED, so each email is sent once however many instances run this; a failed send is logged
 * (without addresses) and not retried. 0 hours turns this off.
 */
export async function checkFailingWebhooks(db: Db, opts: { now?: Date; orgId?: string; limit?: number } = {}) {
  const hours = env().WEBHOOK_DISABLE_AFTER_HOURS;
  if (hours === 0) return { warned: 0, disabled: 0, emails: 0 };
  const now = opts.now ?? new Date();
  const windowMs = hours * 3_600_000;
  const scope = { orgId: opts.orgId ?? null, limit: opts.limit ?? 50 };
  const notices = await db.$transaction(
    async (tx) => {
      const toDisable = await lockFailing(tx, new Date(now.getTime() - windowMs), { ...scope, notNotified: false });
      const toWarn = (await lockFailing(tx, new Date(now.getTime() - windowMs / 2), { ...scope, notNotified: true })).filter(
        (w) => !toDisable.some((d) => d.id === w.id),
      );
      const all: Notice[] = [
        ...toDisable.map((hook) => ({ kind: "disabled" as const, hook, disableAt: now })),
        ...toWarn.map((hook) => ({ kind: "warning" as const, hook, disableAt: new Date(hook.failingSince!.getTime() + windowMs) })),
      ];
      // Audit chain heads are locked in one order (organization id), so two runners never deadlock.
      all.sort((a, b) => a.hook.orgId.localeCompare(b.hook.orgId) || a.hook.id.localeCompare(b.hook.id));
      for (const n of all) {
        if (n.kind === "disabled") {
          await disableInTx(tx, n.hook, now, "failing", ACTOR);
          continue;
        }
        await tx.webhook.update({ where: { id: n.hook.id }, data: { failingNoticeAt: now } });
        await appendAudit(
          tx,
          { orgId: n.hook.orgId, actor: ACTOR },
          {
            action: "webhook.failing_notice",
            subjectType: "webhook",
            subject: n.hook.id,
            data: { failingSince: n.hook.failingSince!.toISOString(), disableAt: n.disableAt.toISOString() },
          },
        );
      }
      return all;
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
  let emails = 0;
  for (const n of notices) emails += await email(db, n);
  return {
    warned: notices.filter((n) => n.kind === "warning").length,
    disabled: notices.filter((n) => n.kind === "disabled").length,
    emails,
  };
}

/** The organization's active owners and admins; its contact address when it has no members yet. */
async function recipients(db: Db, orgId: string): Promise<string[]> {
  const members = await db.consoleMember.findMany({
    where: { orgId, active: true, role: { in: ["owner", "admin"] } },
    select: { email: true },
    orderBy: { email: "asc" },
  });
  if (members.length) return members.map((m) => m.email);
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { contactEmail: true } });
  return org?.contactEmail ? [org.contactEmail] : [];
}

/** Names the endpoint by its host only: a receiver URL's path or query may itself carry a token. */
async function email(db: Db, n: Notice): Promise<number> {
  const host = new URL(n.hook.url).host;
  const since = n.hook.failingSince!.toISOString();
  const consoleUrl = publicUrl("/console/webhooks");
  const subject =
    n.kind === "warning"
      ? `Webhook endpoint ${host} is failing; it will be disabled on ${n.disableAt.toISOString()}`
      : `Webhook endpoint ${host} was disabled after failing since ${since}`;
  const text = [
    n.kind === "warning"
      ? `Every delivery attempt to your webhook endpoint ${n.hook.id} (${host}) has failed since ${since}. Unless one succeeds, it will be disabled on ${n.disableAt.toISOString()}.`
      : `Every delivery attempt to your webhook endpoint ${n.hook.id} (${host}) failed from ${since}, so it was disabled on ${n.disableAt.toISOString()}. Events that happen while it is disabled are kept as dead deliveries.`,
    n.kind === "warning"
      ? "Each attempt's answer is shown on the console's webhooks page; fix the receiver and deliveries resume with the retries."
      : "Once the receiver works, enable the endpoint and recover its deliveries from the time it began failing.",
    `Console: ${consoleUrl}`,
  ].join("\n");
  let sent = 0;
  for (const to of await recipients(db, n.hook.orgId)) {
    try {
      await messaging(db).sendEmail({ to, orgId: n.hook.orgId, subject, text });
      sent++;
    } catch (err) {
      logger().warn(
        { err: { message: (err as Error).message }, orgId: n.hook.orgId, webhookId: n.hook.id },
        "webhook notice email not sent",
      );
    }
  }
  return sent;
}
