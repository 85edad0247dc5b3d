import { randomUUID } from "node:crypto";
import { env } from "@/env";
import type { Account } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { newAccountKey, sealContact } from "../../crypto/account-box";
import { issuerDid } from "../../crypto/issuer-keys";
import { type DbOrTx, Prisma, rawQuery, type Tx } from "../../db/client";
import { joinSql, timestampTz, utcTimestamp } from "../../db/sql";
import { AppError, forbidden, isAppError, notFound } from "../../errors";
import { accountDid, personIdFromDid } from "../../platform/account-ref";
import { contactHash } from "../../platform/contact-address";
import { chainAdapter, generateAccountName, isValidAccountName, parsePublicKey } from "../../providers/chain";
import { decideRisk, lockRiskDevice, planRisk, type RiskCounts, type RiskPlan, riskCountColumns } from "../aml";
import { type ProofTokenRow, proofTokenColumn, spendProofTokenSql, usableProofRow } from "../contacts";
import { type KycCreateTokenRow, kycCreateTokenColumn, spendKycCreateTokenSql, usableKycCreateToken } from "../kyc";
import { accountView } from "./accounts";
import type { FreeAccountInput } from "./accounts.schema";
import { finalizeCreate, PENDING_LEASE_MS, type PendingState, takenConflict, undoReservation } from "./pending-creates";

/**
 * POST /v1/accounts/free in a handful of round trips (docs/performance.md, "Write path"):
 *
 * 1. one read of every gate: the risk counts, the KYC create token, the proof tokens, the person;
 * 2. one statement that records the risk assessment and reserves the account as `pending`,
 *    spending the gates' tokens (all or nothing; a taken name, email or number spends nothing),
 *    with its contacts sealed under its new data key and their keyed hashes (sealed here, in the
 *    process: the key travels in the account's row, no statement of its own);
 * 3. the chain call, with no lock held that another create needs;
 * 4. one grouped audit append that turns the account `provisional` with its event and its audit
 *    entry (many creates of the organization share that statement and its commit).
 *
 * Nothing is acknowledged before step 4 has committed, and only an account the chain accepted gets
 * there. A create interrupted between 3 and 4 is finished (or undone) by recovery against the
 * chain (pending-creates.ts), which also completes or frees its Idempotency-Key.
 */
export async function createFreeAccount(ctx: ServiceContext, input: FreeAccountInput) {
  const plan = prepare(ctx, input);
  const reserved = await reserve(ctx, input, plan);
  const chain = chainAdapter(ctx.db);
  let transactionId: string;
  try {
    ({ transactionId } = await chain.createAccount({ name: plan.name, ownerKey: plan.ownerKey, activeKey: plan.activeKey }));
  } catch (err) {
    throw await chainFailed(ctx, reserved, err, input.kycCreateToken);
  }
  faultPoint("free-create:after-chain");
  const account = await finalizeCreate(ctx.db, reserved.account, reserved.state, transactionId);
  return { ...accountView(account), transactionId };
}

type Plan = {
  name: string;
  ownerKey: string;
  activeKey: string;
  requestedPersonId: string | null;
  risk: RiskPlan;
};

function prepare(ctx: ServiceContext, input: FreeAccountInput): Plan {
  const ownerKey = parsePublicKey(input.ownerPublicKey)!;
  const activeKey = input.activePublicKey ? parsePublicKey(input.activePublicKey)! : ownerKey;
  const name = input.preferredName ?? generateAccountName();
  if (!isValidAccountName(name)) throw new AppError("VALIDATION_ERROR", "preferredName is not a valid account name.");
  const requestedPersonId = input.personDid ? personIdFromDid(issuerDid(), input.personDid) : null;
  if (input.personDid && !requestedPersonId) throw notFound("Person");
  const risk = planRisk(ctx, { deviceFingerprint: input.deviceFingerprint, subjectRef: input.personDid }, "free_create");
  return { name, ownerKey, activeKey, requestedPersonId, risk };
}

type GateRow = RiskCounts & { kyc: KycCreateTokenRow; email: ProofTokenRow; phone: ProofTokenRow; personFound: boolean | null };
type Reserved = { account: Account; state: PendingState };
/** The proven contacts, in clear: what the reservation checks against contacts written in clear before sealing. */
type ClearContacts = { email: string | null; phone: string | null };

/**
 * Steps 1 and 2. With a device fingerprint both run in one transaction holding the device's risk
 * lock, so parallel attempts from one device are counted exactly; otherwise each is one
 * autocommitted statement. The risk event is recorded even when the create is then refused.
 */
async function reserve(ctx: ServiceContext, input: FreeAccountInput, plan: Plan): Promise<Reserved> {
  let riskInsert: Prisma.Sql | undefined;
  // A refusal is returned, not thrown, so that the transaction holding the device lock commits
  // the risk event it wrote.
  const run = async (db: DbOrTx): Promise<Reserved | { refused: unknown }> => {
    if (plan.risk.deviceHash) await lockRiskDevice(db as Tx, plan.risk);
    const [gates] = await rawQuery<GateRow>(db, gateRead(ctx, input, plan), { prepare: true });
    const { assessment, insert } = decideRisk(plan.risk, gates!);
    riskInsert = insert;
    let checked: ReturnType<typeof checkGates>;
    try {
      if (assessment.decision === "deny") throw riskDenied(assessment.assessmentId);
      checked = checkGates(ctx, input, plan, gates!);
    } catch (refused) {
      await db.$executeRaw(insert);
      return { refused };
    }
    const reserved = pendingAccount(ctx, input, plan, checked, assessment);
    const spends = [checked.kycTokenId, checked.emailTokenId, checked.phoneTokenId];
    const clear = { email: checked.email, phone: checked.phone };
    const [row] = await rawQuery<{ reserved: boolean }>(db, reserveStatement(insert, reserved.account, clear, spends, plan.risk.now), {
      prepare: true,
    });
    if (!row!.reserved) return { refused: await takenConflict(db, ctx.org.id, reserved.account, clear, input.kycCreateToken) };
    return reserved;
  };
  let outcome: Reserved | { refused: unknown };
  try {
    outcome = plan.risk.deviceHash ? await ctx.db.$transaction((tx) => run(tx), { timeout: 30_000, maxWait: 10_000 }) : await run(ctx.db);
  } catch (err) {
    if (!isTokenRace(err) || !riskInsert) throw err;
    // A parallel create spent one of the tokens between the read and the reservation: nothing of
    // this attempt was written, so record its assessment alone and refuse as the gate would have.
    await ctx.db.$executeRaw(riskInsert);
    throw forbidden("token_spent", "A token of this request was spent by a parallel request; verify again.");
  }
  if ("refused" in outcome) throw outcome.refused;
  return outcome;
}

function gateRead(ctx: ServiceContext, input: FreeAccountInput, plan: Plan): Prisma.Sql {
  const none = Prisma.sql`NULL::json`;
  const person = plan.requestedPersonId
    ? Prisma.sql`EXISTS (SELECT 1 FROM people WHERE id = ${plan.requestedPersonId}::uuid AND "orgId" = ${ctx.org.id}::uuid)`
    : Prisma.sql`NULL::boolean`;
  return Prisma.sql`SELECT ${Prisma.join([
    Prisma.sql`${input.kycCreateToken ? kycCreateTokenColumn(input.kycCreateToken) : none} AS kyc`,
    Prisma.sql`${input.emailProofToken ? proofTokenColumn(input.emailProofToken) : none} AS email`,
    Prisma.sql`${input.phoneProofToken ? proofTokenColumn(input.phoneProofToken) : none} AS phone`,
    Prisma.sql`${person} AS "personFound"`,
    riskCountColumns(plan.risk),
  ])}`;
}

/** The organization's gates, in the order the API documents their refusals. */
function checkGates(ctx: ServiceContext, input: FreeAccountInput, plan: Plan, gates: GateRow) {
  const { org } = ctx;
  const now = plan.risk.now;
  if (plan.requestedPersonId && !gates.personFound) throw notFound("Person");
  let personId = plan.requestedPersonId;
  let kycTokenId: string | null = null;
  if (input.kycCreateToken) {
    const token = usableKycCreateToken(gates.kyc, org.id, now);
    if (plan.requestedPersonId && plan.requestedPersonId !== token.personId) {
      throw new AppError("VALIDATION_ERROR", "personDid does not match the person of the kycCreateToken.", {
        issues: [{ path: "body.personDid", message: "does not match the kycCreateToken's person" }],
      });
    }
    personId = token.personId;
    kycTokenId = token.id;
  } else if (org.requireKycBeforeFreeCreate) {
    throw forbidden(
      "kyc_required",
      "This organization requires an approved KYC before a free account: send the kycCreateToken from GET /v1/kyc/status.",
    );
  }
  const email = contactGate(ctx, "email", gates.email, input.emailProofToken, org.requireEmailProofBeforeFreeCreate, now);
  const phone = contactGate(ctx, "phone", gates.phone, input.phoneProofToken, org.requirePhoneProofBeforeFreeCreate, now);
  return {
    personId,
    kycTokenId,
    email: email?.address ?? null,
    emailTokenId: email?.id ?? null,
    phone: phone?.address ?? null,
    phoneTokenId: phone?.id ?? null,
  };
}

function contactGate(
  ctx: ServiceContext,
  channel: "email" | "phone",
  row: ProofTokenRow,
  token: string | undefined,
  required: boolean,
  now: Date,
) {
  if (token) return usableProofRow(row, { orgId: ctx.org.id, channel }, now);
  if (required) {
    throw forbidden(
      `${channel}_not_verified`,
      `This organization requires a verified ${channel} before a free account: send ${channel}ProofToken.`,
    );
  }
  return null;
}

function pendingAccount(
  ctx: ServiceContext,
  input: FreeAccountInput,
  plan: Plan,
  gates: ReturnType<typeof checkGates>,
  risk: { assessmentId: string; decision: string },
): Reserved {
  const now = plan.risk.now;
  const chain = chainAdapter(ctx.db).chain;
  const id = randomUUID();
  // A proven contact is sealed under a data key of the account's own (crypto/account-box.ts).
  const key = gates.email || gates.phone ? newAccountKey() : null;
  const sealed = (v: string | null) => (v && key ? sealContact(key.key, id, v) : null);
  const state: PendingState = {
    actor: actorId(ctx.actor),
    personId: gates.personId,
    kycTokenId: gates.kycTokenId,
    emailTokenId: gates.emailTokenId,
    phoneTokenId: gates.phoneTokenId,
    kycGate: ctx.org.requireKycBeforeFreeCreate,
    riskAssessmentId: risk.assessmentId,
    riskDecision: risk.decision,
    idempotencyClaimId: ctx.idempotencyClaimId ?? null,
  };
  const account: Account = {
    id,
    orgId: ctx.org.id,
    chain,
    name: plan.name,
    did: accountDid(chain, plan.name),
    lifecycle: "pending",
    lifecycleBeforeSuspend: null,
    ownerPublicKey: plan.ownerKey,
    activePublicKey: plan.activeKey,
    passkeyCredentialId: input.passkeyCredentialId ?? null,
    // The keyed hash the risk assessment counts by (crypto/risk-hash.ts), computed once for both.
    deviceFingerprintHash: plan.risk.deviceHash,
    email: sealed(gates.email),
    emailHash: gates.email ? contactHash(ctx.org.id, "email", gates.email) : null,
    emailVerifiedAt: gates.email ? now : null,
    phone: sealed(gates.phone),
    phoneHash: gates.phone ? contactHash(ctx.org.id, "phone", gates.phone) : null,
    phoneVerifiedAt: gates.phone ? now : null,
    dataKeySealed: key?.sealed ?? null,
    chainTransactionId: null,
    pendingUntil: new Date(now.getTime() + PENDING_LEASE_MS),
    pendingState: state,
    createdAt: now,
    updatedAt: now,
  };
  return { account, state };
}

/**
 * Records the assessment and reserves the account, spending the tokens, as one statement. A taken
 * name, email or number (any unique key: the contacts' keyed hashes; or a contact still in clear,
 * written before contacts were sealed) inserts nothing and spends nothing; a token spent by a
 * parallel request meanwhile makes the statement raise, so nothing of it stays.
 */
function reserveStatement(riskInsert: Prisma.Sql, a: Account, clear: ClearContacts, tokens: Array<string | null>, now: Date): Prisma.Sql {
  const [kyc, email, phone] = tokens;
  const spends: Prisma.Sql[] = [];
  if (kyc) spends.push(spendKycCreateTokenSql(kyc, now));
  if (email) spends.push(spendProofTokenSql(email, now));
  if (phone) spends.push(spendProofTokenSql(phone, now));
  const ctes = spends.map((sql, i) => Prisma.sql`, ${Prisma.raw(`s${i}`)} AS (${sql} AND EXISTS (SELECT 1 FROM acct) RETURNING 1)`);
  const spent = spends.map((_, i) => Prisma.sql` + (SELECT count(*) FROM ${Prisma.raw(`s${i}`)})`);
  const at = (d: Date | null) => (d ? utcTimestamp(d) : Prisma.sql`NULL`);
  const clearTaken = [
    ...(clear.email ? [Prisma.sql`email = ${clear.email}`] : []),
    ...(clear.phone ? [Prisma.sql`phone = ${clear.phone}`] : []),
  ];
  const notTakenInClear = clearTaken.length
    ? Prisma.sql`WHERE NOT EXISTS (SELECT 1 FROM accounts WHERE "orgId" = ${a.orgId}::uuid AND (${Prisma.join(clearTaken, " OR ")}))`
    : Prisma.empty;
  return Prisma.sql`
    WITH risk AS (${riskInsert} RETURNING 1),
    acct AS (
      INSERT INTO accounts (id, "orgId", chain, name, did, lifecycle, "ownerPublicKey", "activePublicKey", "passkeyCredentialId",
                            "deviceFingerprintHash", email, "emailHash", "emailVerifiedAt", phone, "phoneHash", "phoneVerifiedAt",
                            "dataKeySealed", "pendingUntil", "pendingState", "createdAt", "updatedAt")
      SELECT ${a.id}::uuid, ${a.orgId}::uuid, ${a.chain}, ${a.name}, ${a.did}, 'pending', ${a.ownerPublicKey}, ${a.activePublicKey},
             ${a.passkeyCredentialId}, ${a.deviceFingerprintHash}, ${a.email}, ${a.emailHash}, ${at(a.emailVerifiedAt)},
             ${a.phone}, ${a.phoneHash}, ${at(a.phoneVerifiedAt)}, ${a.dataKeySealed},
             ${timestampTz(a.pendingUntil!)}, ${JSON.stringify(a.pendingState)}::jsonb, ${utcTimestamp(a.createdAt)}, ${utcTimestamp(a.updatedAt)}
      ${notTakenInClear}
      ON CONFLICT DO NOTHING
      RETURNING 1)
    ${joinSql(ctes)}
    SELECT EXISTS (SELECT 1 FROM acct) AS reserved,
           bi_assert(NOT EXISTS (SELECT 1 FROM acct) OR (0 ${joinSql(spent)}) = ${spends.length}, 'token spent elsewhere') AS ok,
           (SELECT count(*) FROM risk) AS risk`;
}

const isTokenRace = (err: unknown) => String((err as Error)?.message ?? "").includes("bi_assert failed: token spent elsewhere");

const riskDenied = (assessmentId: string) =>
  new AppError("FORBIDDEN", "The anti-abuse risk assessment refused this request.", { reason: "risk_denied", assessmentId });

/**
 * The chain refused, or was never reached (a definite answer): the reservation is undone and its
 * tokens handed back. The chain's answer is unknown (a timeout, a lost connection, a database
 * error of the simulated chain): the account stays pending and
 * recovery settles it against the chain; the Idempotency-Key stays claimed until then, so a retry
 * with it waits for that outcome instead of creating a second account.
 */
async function chainFailed(ctx: ServiceContext, r: Reserved, err: unknown, kycCreateToken?: string): Promise<unknown> {
  const definite = isAppError(err) && !err.outcomePending && err.code !== "INTERNAL";
  if (!definite) {
    ctx.log.warn({ err, accountId: r.account.id }, "free create: chain outcome unknown; left pending for recovery");
    const pending = new AppError(
      "PROVIDER_UNAVAILABLE",
      "The chain did not confirm the account in time; retry with the same Idempotency-Key.",
      {
        reason: "create_pending",
        retryAfterSec: Math.ceil(PENDING_LEASE_MS / 1000),
      },
    );
    pending.outcomePending = true;
    return pending;
  }
  await undoReservation(ctx.db, r.account.id, r.state);
  if (err.code === "CONFLICT" && err.details?.reason === "name_taken" && kycCreateToken) {
    return new AppError("CONFLICT", err.message, { ...err.details, kycCreateToken });
  }
  return err;
}

/**
 * Test-only fault injection (refused in production by src/env.ts): BI_FAULT_POINT names a point at
 * which the process kills itself, so a test can crash it exactly between two steps.
 */
function faultPoint(name: string): void {
  if (env().BI_FAULT_POINT === name) process.kill(process.pid, "SIGKILL");
}
