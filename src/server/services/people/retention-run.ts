import { z } from "zod";
import { Prisma } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { openContacts } from "../../crypto/account-box";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Db, DbOrTx, Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { logger } from "../../log";
import { personDidOf } from "../../platform/account-ref";
import { OPEN_STATUSES } from "../../platform/aml-case-status";
import { appendAudit } from "../audit";
import { eraseUnlessHeld } from "./erasure";

/**
 * The organization's retention policies (docs/data-protection.md, "Retention"), each off until
 * set on `GET`/`PUT /v1/admin/retention`:
 *
 * - `rejectedKycDays`: a person whose verification was rejected, or never finished (`not_started`,
 *   `pending`, `retry`; not `in_review`, which waits on the provider's decision), is erased once
 *   their last activity is older than that: the latest of their row's last change
 *   (`people.updatedAt`: a start, a retry, a review), their review (`reviewedAt`) and the last
 *   change of any of their KYC sessions (a provider reporting progress).
 * - `closedRelationshipDays`: an approved person with no active or suspended binding and no open
 *   AML case is erased once the relationship ended longer ago than that: the latest of their
 *   approval, their last binding's revocation and their last case's closing (the end the AML
 *   retention period counts from). The retention period still holds them: such a person is held.
 * - `contactOnlyDays`: an account no person was ever linked to (no binding, bind session or KYC
 *   session names it) has its email, phone and device fingerprint blanked once they were set
 *   longer ago than that (the latest of the account's creation and its contacts' verification,
 *   which every contact change sets); one named by an AML case keeps them while the case is open
 *   and `amlRetentionDays` after it closed. The organization's one-time codes and proof tokens
 *   created longer ago than that are deleted.
 *
 * `retentionPlan` is the dry run: exactly what `runRetention` at the same instant erases, blanks
 * and deletes. The run computes the plan again and carries out only that, re-checking each person
 * with their row locked (one who changed in between is skipped) and erasing through
 * `eraseUnlessHeld`, which checks the holds again itself.
 */

export const RETENTION_ACTOR = "system:retention";
/** How many people, held people and accounts one plan (and so one run) lists, at most. */
export const RETENTION_BATCH = 1000;
/** A case still being worked (the statuses a hold is read from), as an SQL list. */
const OPEN_CASE_STATUSES = Prisma.sql`(${Prisma.join([...OPEN_STATUSES])})`;

const Rule = z
  .enum(["rejected_kyc", "closed_relationship"])
  .describe("The policy that selects the person: rejected_kyc (rejectedKycDays), closed_relationship (closedRelationshipDays)");
export type RetentionRule = z.output<typeof Rule>;

const PersonDid = z.string().describe("The person's DID");
export const RetentionPlanView = z
  .object({
    at: z.iso.datetime().describe("The instant the plan was computed for"),
    people: z
      .array(z.object({ personDid: PersonDid, rule: Rule }))
      .describe("People who would be erased, longest past their policy's threshold first"),
    held: z
      .array(
        z.object({
          personDid: PersonDid,
          rule: Rule,
          heldBy: z.array(z.enum(["open_case", "aml_retention"])),
          erasableFrom: z.iso
            .datetime()
            .nullable()
            .describe("When the AML retention period ends; null when only an open case holds the person"),
        }),
      )
      .describe("People a policy selects but a hold keeps (left as they are), soonest erasable first"),
    accounts: z
      .array(z.object({ accountDid: z.string() }))
      .describe("Accounts whose email, phone and device fingerprint would be blanked (the accounts stay)"),
    otpChallenges: z.int().describe("One-time codes that would be deleted"),
    proofTokens: z.int().describe("Contact proof tokens that would be deleted"),
    more: z.boolean().describe(`Whether a list was cut at ${RETENTION_BATCH}: the rest comes in later runs`),
  })
  .meta({ id: "RetentionPlan" });
export type RetentionPlanView = z.output<typeof RetentionPlanView>;

export type RetentionRunResult = RetentionPlanView & {
  /** People in the plan who had changed by the time their turn came (no longer selected, locked elsewhere, already erased). */
  skipped: number;
};

type OrgPolicies = {
  id: string;
  amlRetentionDays: number;
  rejectedKycDays: number | null;
  closedRelationshipDays: number | null;
  contactOnlyDays: number | null;
};

type PersonRow = {
  id: string;
  rule: RetentionRule;
  heldOpen: boolean;
  heldAml: boolean;
  erasableFromMs: number | null;
};

type SelectedRow = PersonRow & { held: boolean; n: bigint | number };

type AccountRow = { id: string; did: string; email: string | null; phone: string | null; dataKeySealed: string | null };

type Plan = {
  at: Date;
  people: PersonRow[];
  held: PersonRow[];
  accounts: AccountRow[];
  otpChallenges: number;
  proofTokens: number;
  more: boolean;
};

const daysBefore = (now: Date, days: number) => Prisma.sql`(${utcTimestamp(now)} - make_interval(days => ${days}::int))`;
const epochMs = (expr: Prisma.Sql) => Prisma.sql`(extract(epoch FROM ${expr}) * 1000)::float8`;

/**
 * The people a policy selects, with what holds them as `erasureHolds` (erasure.ts) decides it:
 * an open case (matched by person id or DID), and the AML retention period counted from the end
 * of the relationship (the latest of the review, the last revocation and the last case's
 * closing; now when none is known) for a person who had one (approved, bound or in a case).
 * Either the whole organization, numbered per held/not held in plan order, or one person (`only`).
 */
function peopleSql(org: OrgPolicies, now: Date, only?: string): Prisma.Sql | null {
  const nowTs = utcTimestamp(now);
  const prefix = `${issuerDid()}:people:`;
  const person = (col: string) => (only ? Prisma.sql`AND ${Prisma.raw(col)} = ${only}::uuid` : Prisma.empty);
  const rules: Prisma.Sql[] = [];
  if (org.rejectedKycDays !== null) {
    const cutoff = daysBefore(now, org.rejectedKycDays);
    // updatedAt is never later than the last activity, so it narrows the scan first.
    rules.push(Prisma.sql`(p."kycStatus" IN ('rejected', 'not_started', 'pending', 'retry') AND p."updatedAt" < ${cutoff}
      AND greatest(p."updatedAt", p."reviewedAt", k.at) < ${cutoff})`);
  }
  if (org.closedRelationshipDays !== null) {
    const cutoff = daysBefore(now, org.closedRelationshipDays);
    rules.push(Prisma.sql`(p."kycStatus" = 'approved' AND p."reviewedAt" < ${cutoff}
      AND NOT coalesce(b.live, false) AND NOT coalesce(c.open, false)
      AND greatest(p."reviewedAt", b."lastRevoked", c."lastClosed") < ${cutoff})`);
  }
  if (!rules.length) return null;
  return Prisma.sql`
    WITH b AS (
      SELECT "personId" AS pid, count(*)::int AS n, bool_or(status IN ('active', 'suspended')) AS live, max("revokedAt") AS "lastRevoked"
      FROM account_bindings WHERE "orgId" = ${org.id}::uuid ${person(`"personId"`)} GROUP BY "personId"
    ), c AS (
      SELECT pid, count(*)::int AS n, bool_or(status::text IN ${OPEN_CASE_STATUSES}) AS open, max("closedAt") AS "lastClosed" FROM (
        SELECT "personId" AS pid, status::text AS status, "closedAt" FROM aml_cases
        WHERE "orgId" = ${org.id}::uuid AND "personId" IS NOT NULL ${person(`"personId"`)}
        UNION ALL
        SELECT pp.id, ac.status::text, ac."closedAt" FROM aml_cases ac JOIN people pp ON ac."subjectDid" = ${prefix} || pp.id::text
        WHERE ac."orgId" = ${org.id}::uuid AND pp."orgId" = ${org.id}::uuid ${person(`pp.id`)}
      ) x GROUP BY pid
    ), k AS (
      SELECT "personId" AS pid, max("updatedAt") AS at FROM kyc_sessions
      WHERE "orgId" = ${org.id}::uuid ${person(`"personId"`)} GROUP BY "personId"
    ), selected AS (
      SELECT p.id,
        CASE WHEN p."kycStatus" = 'approved' THEN 'closed_relationship' ELSE 'rejected_kyc' END AS rule,
        CASE WHEN p."kycStatus" = 'approved' THEN greatest(p."reviewedAt", b."lastRevoked", c."lastClosed")
             ELSE greatest(p."updatedAt", p."reviewedAt", k.at) END AS since,
        coalesce(c.open, false) AS "heldOpen",
        CASE WHEN p."kycStatus" = 'approved' OR coalesce(b.n, 0) > 0 OR coalesce(c.n, 0) > 0
             THEN coalesce(greatest(p."reviewedAt", b."lastRevoked", c."lastClosed"), ${nowTs})
                  + make_interval(days => ${org.amlRetentionDays}::int) END AS "erasableFrom"
      FROM people p
      LEFT JOIN b ON b.pid = p.id LEFT JOIN c ON c.pid = p.id LEFT JOIN k ON k.pid = p.id
      WHERE p."orgId" = ${org.id}::uuid AND p."erasedAt" IS NULL ${person(`p.id`)}
        AND (${Prisma.join(rules, " OR ")})
    ), judged AS (
      SELECT s.*, coalesce(s."erasableFrom" > ${nowTs}, false) AS "heldAml" FROM selected s
    )
    SELECT id::text AS id, rule, "heldOpen", "heldAml",
      CASE WHEN "heldAml" THEN ${epochMs(Prisma.sql`"erasableFrom"`)} END AS "erasableFromMs",
      ("heldOpen" OR "heldAml") AS held,
      row_number() OVER (PARTITION BY ("heldOpen" OR "heldAml")
        ORDER BY CASE WHEN "heldAml" THEN "erasableFrom" END NULLS LAST, since, id) AS n
    FROM judged`;
}

/**
 * Accounts no person is linked to whose contacts were set before the cutoff and that an AML case
 * does not hold, oldest first; `only` narrows to those ids (the run's re-check).
 */
function accountsSql(org: OrgPolicies & { contactOnlyDays: number }, now: Date, limit: number, only?: string[]): Prisma.Sql {
  const nowTs = utcTimestamp(now);
  const setAt = Prisma.sql`greatest(a."createdAt", a."emailVerifiedAt", a."phoneVerifiedAt")`;
  return Prisma.sql`
    SELECT a.id::text AS id, a.did, a.email, a.phone, a."dataKeySealed" FROM accounts a
    WHERE a."orgId" = ${org.id}::uuid ${only ? Prisma.sql`AND a.id = ANY(${only}::uuid[])` : Prisma.empty}
      AND a.lifecycle <> 'pending'
      AND (a.email IS NOT NULL OR a.phone IS NOT NULL OR a."deviceFingerprintHash" IS NOT NULL)
      AND ${setAt} < ${daysBefore(now, org.contactOnlyDays)}
      AND NOT EXISTS (SELECT 1 FROM account_bindings x WHERE x."orgId" = a."orgId" AND x."accountId" = a.id)
      AND NOT EXISTS (SELECT 1 FROM bind_sessions x WHERE x."accountId" = a.id)
      AND NOT EXISTS (SELECT 1 FROM kyc_sessions x WHERE x."orgId" = a."orgId" AND x."accountId" = a.id)
      AND NOT EXISTS (
        SELECT 1 FROM aml_cases x WHERE x."orgId" = a."orgId" AND (x."accountId" = a.id OR x."subjectDid" = a.did)
          AND (x.status::text IN ${OPEN_CASE_STATUSES}
               OR coalesce(x."closedAt", ${nowTs}) + make_interval(days => ${org.amlRetentionDays}::int) > ${nowTs}))
    ORDER BY ${setAt}, a.id
    LIMIT ${limit}`;
}

const olderThan = (now: Date, days: number) => ({ lt: new Date(now.getTime() - days * 86_400_000) });

async function loadOrg(db: DbOrTx, orgId: string): Promise<OrgPolicies> {
  return db.organization.findUniqueOrThrow({
    where: { id: orgId },
    select: { id: true, amlRetentionDays: true, rejectedKycDays: true, closedRelationshipDays: true, contactOnlyDays: true },
  });
}

async function computePlan(db: DbOrTx, org: OrgPolicies, at: Date, limit: number): Promise<Plan> {
  const selected = peopleSql(org, at);
  const rows = selected ? await db.$queryRaw<SelectedRow[]>`SELECT * FROM (${selected}) q WHERE n <= ${limit + 1} ORDER BY held, n` : [];
  const pick = (held: boolean) =>
    rows
      .filter((r) => r.held === held)
      .map(({ id, rule, heldOpen, heldAml, erasableFromMs }) => ({ id, rule, heldOpen, heldAml, erasableFromMs }));
  const people = pick(false);
  const held = pick(true);
  const contact = org.contactOnlyDays;
  const accounts =
    contact === null ? [] : await db.$queryRaw<AccountRow[]>(accountsSql({ ...org, contactOnlyDays: contact }, at, limit + 1));
  const [otpChallenges, proofTokens] =
    contact === null
      ? [0, 0]
      : await Promise.all([
          db.otpChallenge.count({ where: { orgId: org.id, createdAt: olderThan(at, contact) } }),
          db.proofToken.count({ where: { orgId: org.id, createdAt: olderThan(at, contact) } }),
        ]);
  return {
    at,
    people: people.slice(0, limit),
    held: held.slice(0, limit),
    accounts: accounts.slice(0, limit),
    otpChallenges,
    proofTokens,
    more: people.length > limit || held.length > limit || accounts.length > limit,
  };
}

const personView = (issuer: string) => (r: PersonRow) => ({ personDid: personDidOf(issuer, r.id), rule: r.rule });
const heldView = (issuer: string) => (r: PersonRow) => ({
  ...personView(issuer)(r),
  heldBy: [...(r.heldOpen ? ["open_case" as const] : []), ...(r.heldAml ? ["aml_retention" as const] : [])],
  erasableFrom: r.erasableFromMs === null ? null : new Date(Number(r.erasableFromMs)).toISOString(),
});

/** The dry run: what `runRetention(db, orgId, now)` would erase, blank and delete, and who a hold keeps. */
export async function retentionPlan(db: Db, orgId: string, now: Date = new Date(), limit = RETENTION_BATCH): Promise<RetentionPlanView> {
  const plan = await computePlan(db, await loadOrg(db, orgId), now, limit);
  const issuer = issuerDid();
  return {
    at: now.toISOString(),
    people: plan.people.map(personView(issuer)),
    held: plan.held.map(heldView(issuer)),
    accounts: plan.accounts.map((a) => ({ accountDid: a.did })),
    otpChallenges: plan.otpChallenges,
    proofTokens: plan.proofTokens,
    more: plan.more,
  };
}

/** GET /v1/admin/retention/preview. */
export function previewRetention(ctx: ServiceContext) {
  return retentionPlan(ctx.db, ctx.org.id, ctx.now());
}

const TX = { timeout: 30_000, maxWait: 10_000 };

/** One planned person, with their row locked: still selected and not held, then erased unless `eraseUnlessHeld` finds a hold. */
async function erasePlanned(tx: Tx, org: OrgPolicies, row: PersonRow, at: Date): Promise<PersonRow | "erased" | "skipped"> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM people WHERE id = ${row.id}::uuid AND "orgId" = ${org.id}::uuid FOR UPDATE SKIP LOCKED`;
  if (!locked.length) return "skipped";
  const [current] = await tx.$queryRaw<SelectedRow[]>(peopleSql(org, at, row.id)!);
  if (!current || current.rule !== row.rule) return "skipped";
  if (current.held) return current;
  const done = await eraseUnlessHeld(tx, org, row.id, at, RETENTION_ACTOR);
  // A hold found by eraseUnlessHeld alone: reported held, with what holds it unknown here.
  return done === "held" ? current : done === "erased" ? "erased" : "skipped";
}

/**
 * Carries out the plan for `now` (computed again here): each person in a transaction of their own,
 * then the accounts, codes and tokens with one `org.retention_run` audit entry (counts only, and
 * only when something was erased, blanked or deleted). Answers what was done, in the plan's shape.
 */
export async function runRetention(db: Db, orgId: string, now: Date = new Date(), limit = RETENTION_BATCH): Promise<RetentionRunResult> {
  const org = await loadOrg(db, orgId);
  const plan = await computePlan(db, org, now, limit);
  const erased: PersonRow[] = [];
  const held: PersonRow[] = [...plan.held];
  let skipped = 0;
  for (const row of plan.people) {
    const done = await db.$transaction((tx) => erasePlanned(tx, org, row, now), TX);
    if (done === "erased") erased.push(row);
    else if (done === "skipped") skipped++;
    else held.push(done);
  }

  const contact = org.contactOnlyDays;
  const tail = await db.$transaction(async (tx) => {
    let accounts: AccountRow[] = [];
    let otpChallenges = 0;
    let proofTokens = 0;
    if (contact !== null) {
      const ids = plan.accounts.map((a) => a.id);
      const locked = ids.length
        ? await tx.$queryRaw<{ id: string }[]>`
            SELECT id::text AS id FROM accounts WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE SKIP LOCKED`
        : [];
      // Read again with the rows locked: an account bound or linked in between is left alone.
      accounts = locked.length
        ? await tx.$queryRaw<AccountRow[]>(
            accountsSql(
              { ...org, contactOnlyDays: contact },
              now,
              limit,
              locked.map((l) => l.id),
            ),
          )
        : [];
      if (accounts.length) {
        // The contacts go with the account's data key (crypto/account-box.ts): opened first, for their messages.
        const addresses = accounts.flatMap((a) => Object.values(openContacts(a))).filter((x): x is string => !!x);
        await tx.account.updateMany({
          where: { id: { in: accounts.map((a) => a.id) } },
          data: { email: null, emailHash: null, phone: null, phoneHash: null, dataKeySealed: null, deviceFingerprintHash: null },
        });
        if (addresses.length) await tx.devOutboxMessage.deleteMany({ where: { to: { in: addresses } } });
      }
      otpChallenges = (await tx.otpChallenge.deleteMany({ where: { orgId, createdAt: olderThan(now, contact) } })).count;
      proofTokens = (await tx.proofToken.deleteMany({ where: { orgId, createdAt: olderThan(now, contact) } })).count;
    }
    if (erased.length || accounts.length || otpChallenges || proofTokens)
      await appendAudit(
        tx,
        { orgId, actor: RETENTION_ACTOR },
        {
          action: "org.retention_run",
          subjectType: "organization",
          subject: orgId,
          data: {
            at: now.toISOString(),
            policies: {
              rejectedKycDays: org.rejectedKycDays,
              closedRelationshipDays: org.closedRelationshipDays,
              contactOnlyDays: org.contactOnlyDays,
            },
            peopleErased: erased.length,
            peopleHeld: held.length,
            peopleSkipped: skipped,
            accountsCleared: accounts.length,
            otpChallengesDeleted: otpChallenges,
            proofTokensDeleted: proofTokens,
            more: plan.more,
          },
        },
      );
    return { accounts, otpChallenges, proofTokens };
  }, TX);

  const issuer = issuerDid();
  return {
    at: now.toISOString(),
    people: erased.map(personView(issuer)),
    held: held.map(heldView(issuer)),
    accounts: tail.accounts.map((a) => ({ accountDid: a.did })),
    otpChallenges: tail.otpChallenges,
    proofTokens: tail.proofTokens,
    more: plan.more,
    skipped,
  };
}

/**
 * The worker's `retention` job: runs the policies of every organization that has one set. An
 * organization whose run fails is logged and tried again on the next run; the others go on.
 */
export async function runRetentionPolicies(db: Db, now: Date = new Date()) {
  const orgs = await db.organization.findMany({
    where: { OR: [{ rejectedKycDays: { not: null } }, { closedRelationshipDays: { not: null } }, { contactOnlyDays: { not: null } }] },
    select: { id: true },
    orderBy: { id: "asc" },
  });
  const totals = { organizations: 0, peopleErased: 0, peopleHeld: 0, accountsCleared: 0, failed: 0 };
  for (const { id } of orgs) {
    try {
      const r = await runRetention(db, id, now);
      totals.organizations++;
      totals.peopleErased += r.people.length;
      totals.peopleHeld += r.held.length;
      totals.accountsCleared += r.accounts.length;
    } catch (err) {
      totals.failed++;
      logger().error({ job: "retention", orgId: id, err: { message: (err as Error).message } }, "retention run failed");
    }
  }
  return totals;
}
