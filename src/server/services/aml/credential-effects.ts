import { type Actor, actorId } from "../../context";
import { Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { attestationChangedSql } from "../../platform/attestation-sync";
import { eventInsertSql } from "../../platform/outbox";
import type { appendAudit, GroupedWrite } from "../audit";
import { applyComplianceStatus, lockBindings } from "../credential-status";
import { caseEvent } from "./case-events";

/**
 * What a case's outcome does to the person's credentials, in the case's own transaction (after
 * the person and case locks, before the audit entry): a sanctions flag suspends every binding of
 * the person, a confirmed sanctions match revokes them, a clear lifts the flag's suspension. The
 * case's timeline records which bindings changed; each binding's own audit entry and webhook are
 * written by the status change itself.
 */
export async function credentialsFollowCase(
  tx: Tx,
  input: {
    orgId: string;
    caseId: string;
    personId: string | null;
    change: "suspend" | "revoke" | "lift";
    reason: string;
    actor: Actor | string;
  },
) {
  if (!input.personId) return [];
  const changed = await applyComplianceStatus(tx, { ...input, personId: input.personId, at: new Date() });
  if (changed.length) {
    const kind = { suspend: "suspended", revoke: "revoked", lift: "reinstated" }[input.change];
    await caseEvent(tx, {
      orgId: input.orgId,
      caseId: input.caseId,
      kind: "credentials_changed",
      actor: typeof input.actor === "string" ? input.actor : actorId(input.actor),
      data: { change: kind, bindings: changed.map((c) => ({ bindingId: c.bindingId, accountDid: c.accountDid, status: c.status })) },
    });
  }
  return changed;
}

/**
 * Takes the person's binding locks up front, for transitions that may append an audit entry
 * (which locks the chain head) before they change a binding: locks are then always taken in the
 * order person, case, bindings, audit head, as in every other write.
 */
export async function lockPersonBindings(tx: Tx, orgId: string, personId: string) {
  await lockBindings(tx, orgId, { personId });
}

type AuditInput = Parameters<typeof appendAudit>[2];

/** A binding whose sanctions suspension a clear lifts, as the clear read it: `version` (its row's xmin) guards the write. */
export type LiftableBinding = {
  id: string;
  accountId: string;
  accountDid: string;
  bindingVcHash: string;
  suspendedFor: string[];
  version: string;
};

/**
 * The person's bindings a clear changes (not revoked, suspended for the sanctions flag), as a JSON
 * array: a column of the clear's one read (cases.ts, proposeClear).
 */
export const liftableBindingsSql = (orgId: string, personId: string): Prisma.Sql =>
  Prisma.sql`coalesce((
    SELECT json_agg(json_build_object('id', b.id, 'accountId', b."accountId", 'accountDid', a.did, 'bindingVcHash', b."bindingVcHash",
                                      'suspendedFor', coalesce(b."suspendedFor", '{}'), 'version', b.xmin::text) ORDER BY b.id)
    FROM account_bindings b JOIN accounts a ON a.id = b."accountId"
    WHERE b."orgId" = ${orgId}::uuid AND b."personId" = ${personId}::uuid AND b.status <> 'revoked'
      AND 'sanctions_flag' = ANY(b."suspendedFor")), '[]'::json)`;

/**
 * credentialsFollowCase's lift as writes of the clear's grouped statement, with what
 * liftLocked (services/credential-status) writes for each binding: the binding row (guarded by
 * the row version read, in place of its lock), and when no reason is left the suspension bit
 * cleared, the attestation mark and the `identity.binding_reinstated` event; its audit entry
 * (reinstated, or suspension_lifted while another reason holds it), and the case timeline's
 * `credentials_changed` event. Every write runs before the chain head moves (lock order).
 */
export function liftWrites(input: { orgId: string; personDid: string; actor: string; at: Date; bindings: LiftableBinding[] }): {
  writes: GroupedWrite[];
  entries: { actor: string; input: AuditInput }[];
  timeline: { kind: "credentials_changed"; actor: string; data: Prisma.InputJsonObject } | null;
} {
  const { orgId, personDid, actor, at, bindings } = input;
  const t = utcTimestamp(at);
  const writes: GroupedWrite[] = [];
  const entries: { actor: string; input: AuditInput }[] = [];
  const changed: { bindingId: string; accountDid: string; status: string }[] = [];
  const reinstated: LiftableBinding[] = [];
  for (const b of bindings) {
    const suspendedFor = b.suspendedFor.filter((r) => r !== "sanctions_flag");
    const status = suspendedFor.length ? "suspended" : "active";
    writes.push({
      sql: Prisma.sql`UPDATE account_bindings SET status = ${status}::"BindingStatus", "suspendedFor" = ${suspendedFor}::text[], "statusChangedAt" = ${t}
                      WHERE id = ${b.id}::uuid AND "orgId" = ${orgId}::uuid AND xmin = ${b.version}::xid`,
      rows: 1,
      beforeHead: true,
    });
    if (status === "active") reinstated.push(b);
    changed.push({ bindingId: b.id, accountDid: b.accountDid, status });
    entries.push({
      actor,
      input: {
        action: status === "active" ? "identity.binding_reinstated" : "identity.binding_suspension_lifted",
        subjectType: "account",
        subject: b.accountDid,
        data: { bindingId: b.id, personDid, reason: "sanctions_flag", suspendedFor },
      },
    });
  }
  if (reinstated.length) {
    const ids = reinstated.map((b) => b.id);
    writes.push(
      {
        sql: Prisma.sql`UPDATE credential_status_entries SET set = false, "changedAt" = ${t}
                        WHERE "bindingId" = ANY(${ids}::uuid[]) AND purpose = 'suspension' AND set`,
        rows: null,
        beforeHead: true,
      },
      { sql: attestationChangedSql(orgId, [...new Set(reinstated.map((b) => b.accountId))], at), rows: null, beforeHead: true },
      ...reinstated.map((b) => ({
        sql: eventInsertSql(
          orgId,
          "identity.binding_reinstated",
          { accountDid: b.accountDid, personDid, bindingVcHash: b.bindingVcHash, reason: "sanctions_flag" },
          at,
        ),
        rows: 1,
        beforeHead: true,
      })),
    );
  }
  const timeline = changed.length
    ? { kind: "credentials_changed" as const, actor, data: { change: "reinstated", bindings: changed } }
    : null;
  return { writes, entries, timeline };
}
