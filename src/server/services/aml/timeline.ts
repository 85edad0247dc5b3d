import { actorId, type ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { jcs } from "../../crypto/jcs";
import type { DbOrTx } from "../../db/client";
import { readAll } from "../../db/tx";
import { isUuid } from "../../platform/ids";
import { appendAudit, signCheckpoint } from "../audit";
import { personSummary } from "../people";
import { caseEvent } from "./case-events";
import { caseNotFound, withHits } from "./case-records";
import { caseKeys, openCaseText, openEventData } from "./case-text";
import type { AmlCaseEventKind } from "./casework.schema";

/** What a clear does and does not do, as the case detail states it (docs/api/guides/aml-cases.md). */
export const CLEARING_EFFECT = {
  changes: [
    "Lifts the person's PEP and sanctions flags and resets their risk score to 0.",
    "Closes the case as cleared; its timeline, comments and evidence are kept and stay searchable.",
    "Lifts the suspension the sanctions flag put on the person's bindings, so their credentials' status lists say valid again.",
  ],
  doesNotChange: [
    "A rejected KYC stays rejected unless the person is verified again.",
    "Screening results and the evidence of each hit stay as recorded.",
    "Accounts are not changed (a suspended account stays suspended), nor is a binding suspended because its account's keys changed.",
    "A later screening hit on the person opens a new case.",
  ],
};

/**
 * The case, its person with their accounts and bindings, and its events in order, read from one
 * client (a transaction for exports). What officers wrote (comments, the reasons and notes in
 * events) is opened with the person's data key: "[erased]" once they are erased.
 */
async function readTimeline(db: DbOrTx, orgId: string, caseId: string, now: Date) {
  const row = isUuid(caseId) ? await db.amlCase.findFirst({ where: { id: caseId, orgId } }) : null;
  if (!row) throw caseNotFound();
  const [[view], person, bindings, events, comments, keys] = await readAll(db, [
    () => withHits(db, orgId, [row], now),
    () => (row.personId ? db.person.findFirst({ where: { id: row.personId, orgId } }) : null),
    () =>
      row.personId
        ? db.accountBinding.findMany({
            where: { orgId, personId: row.personId },
            orderBy: [{ createdAt: "asc" }, { id: "asc" }],
            include: { account: { select: { did: true, name: true, chain: true, lifecycle: true } } },
          })
        : [],
    () => db.amlCaseEvent.findMany({ where: { orgId, caseId: row.id }, orderBy: { seq: "asc" } }),
    () => db.amlCaseComment.findMany({ where: { orgId, caseId: row.id } }),
    () => caseKeys(db, [row.personId]),
  ]);
  const key = row.personId ? keys.get(row.personId) : null;
  const textOf = new Map(comments.map((c) => [c.id, openCaseText(c.body, row.personId, key)]));
  const accounts = new Map<string, { accountDid: string; name: string; chain: string; lifecycle: string }>();
  for (const b of bindings)
    accounts.set(b.account.did, {
      accountDid: b.account.did,
      name: b.account.name,
      chain: b.account.chain,
      lifecycle: b.account.lifecycle,
    });
  return {
    case: view!,
    person: person ? personSummary(person, issuerDid()) : null,
    accounts: [...accounts.values()],
    bindings: bindings.map((b) => ({
      bindingId: b.id,
      accountDid: b.account.did,
      createdAt: b.createdAt.toISOString(),
      revokedAt: b.revokedAt?.toISOString() ?? null,
    })),
    events: events.map((e) => {
      const data = openEventData((e.data ?? {}) as Record<string, unknown>, row.personId, key);
      return {
        seq: e.seq,
        kind: e.kind as AmlCaseEventKind,
        actor: e.actor,
        at: e.createdAt.toISOString(),
        data,
        text: e.kind === "comment" && typeof data.commentId === "string" ? (textOf.get(data.commentId) ?? null) : null,
      };
    }),
    clearing: CLEARING_EFFECT,
  };
}

/** GET /v1/aml/cases/{caseId}/timeline. */
export const getTimeline = (ctx: ServiceContext, caseId: string) => readTimeline(ctx.db, ctx.org.id, caseId, ctx.now());

/**
 * GET /v1/aml/cases/{caseId}/export: the timeline as a JSON bundle for an examiner, signed like
 * an audit export (audit/checkpoint-proof.ts): the checkpoint holds the SHA-256 of the timeline's
 * JCS form, and the Ed25519 proof covers the checkpoint. The export itself is audited and is the
 * last event of the timeline it exports.
 */
export async function exportCase(ctx: ServiceContext, caseId: string) {
  const orgId = ctx.org.id;
  return ctx.db.$transaction(
    async (tx) => {
      const row = isUuid(caseId)
        ? await tx.amlCase.findFirst({ where: { id: caseId, orgId }, select: { id: true, subjectDid: true } })
        : null;
      if (!row) throw caseNotFound();
      const now = ctx.now();
      await caseEvent(tx, { orgId, caseId: row.id, kind: "exported", actor: actorId(ctx.actor), at: now });
      await appendAudit(
        tx,
        { orgId, actor: ctx.actor },
        { action: "aml.case_exported", subjectType: "person", subject: row.subjectDid, data: { caseId: row.id } },
      );
      const timeline = await readTimeline(tx, orgId, row.id, now);
      const checkpoint = {
        type: "bi-aml-case-checkpoint/1" as const,
        organizationId: orgId,
        caseId: row.id,
        timelineDigest: sha256Hex(jcs(timeline)),
        events: timeline.events.length,
        createdAt: now.toISOString(),
      };
      return {
        format: "bi-aml-case-export/1" as const,
        organizationId: orgId,
        caseId: row.id,
        timeline,
        checkpoint,
        proof: signCheckpoint(checkpoint),
      };
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}
