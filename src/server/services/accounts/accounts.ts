import type { Account, AccountBinding } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import { Prisma, type Tx } from "../../db/client";
import { AppError, conflict, forbidden, notFound } from "../../errors";
import { accountDid, findAccount, personDidOf, personIdFromDid } from "../../platform/account-ref";
import { maskEmail, maskPhone } from "../../platform/contact-address";
import { emitEvent } from "../../platform/outbox";
import { chainAdapter, generateAccountName, isValidAccountName, parsePublicKey } from "../../providers/chain";
import { assessRisk } from "../aml";
import { appendAudit } from "../audit";
import { spendProofToken } from "../contacts";
import { spendKycCreateToken } from "../kyc";
import type { FreeAccountInput } from "./accounts.schema";

/** A binding as account reads show it: its status is the one its credential's status list publishes. */
const bindingView = (issuer: string, b: AccountBinding) => ({
  bindingId: b.id,
  personDid: personDidOf(issuer, b.personId),
  bindingVcHash: b.bindingVcHash,
  createdAt: b.createdAt.toISOString(),
  status: b.status,
  suspendedFor: b.suspendedFor,
});

export function accountView(a: Account, bindings: AccountBinding[] = []) {
  const issuer = issuerDid();
  return {
    accountDid: a.did,
    name: a.name,
    chain: a.chain,
    lifecycle: a.lifecycle,
    ownerPublicKey: a.ownerPublicKey,
    activePublicKey: a.activePublicKey,
    contacts: {
      email: a.email ? maskEmail(a.email) : null,
      emailVerified: !!a.emailVerifiedAt,
      phone: a.phone ? maskPhone(a.phone) : null,
      phoneVerified: !!a.phoneVerifiedAt,
    },
    bindings: bindings.filter((b) => !b.revokedAt).map((b) => bindingView(issuer, b)),
    createdAt: a.createdAt.toISOString(),
  };
}

const nameTaken = (name: string, kycCreateToken?: string) =>
  conflict("name_taken", `The account name ${name} is already taken; choose another.`, kycCreateToken ? { kycCreateToken } : undefined);

/** Maps a unique violation raised by a concurrent create to the conflict the caller can act on. */
function uniqueConflict(err: unknown, name: string, kycCreateToken?: string): AppError | null {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== "P2002") return null;
  const target = JSON.stringify(err.meta ?? {});
  if (target.includes("email")) return conflict("email_taken", "This email address is already bound to an account.");
  if (target.includes("phone")) return conflict("phone_taken", "This phone number is already bound to an account.");
  return nameTaken(name, kycCreateToken);
}

/**
 * POST /v1/accounts/free. Everything — the gates' tokens, the chain account (the simulated chain
 * shares the transaction), the row, its event and its audit entry — commits together or not at
 * all, so a failure anywhere leaves no account, no event, no audit entry and no spent token.
 */
export async function createFreeAccount(ctx: ServiceContext, input: FreeAccountInput) {
  const org = ctx.org;
  const ownerKey = parsePublicKey(input.ownerPublicKey)!;
  const activeKey = input.activePublicKey ? parsePublicKey(input.activePublicKey)! : ownerKey;
  const name = input.preferredName ?? generateAccountName();
  if (!isValidAccountName(name)) throw new AppError("VALIDATION_ERROR", "preferredName is not a valid account name.");
  const requestedPersonId = input.personDid ? personIdFromDid(issuerDid(), input.personDid) : null;
  if (input.personDid && !requestedPersonId) throw notFound("Person");
  // Risk first, its event committed on its own: a refused or failed attempt still counts towards velocity.
  const risk = await assessRisk(ctx.db, ctx, { deviceFingerprint: input.deviceFingerprint, subjectRef: input.personDid }, "free_create");
  if (risk.decision === "deny") {
    throw new AppError("FORBIDDEN", "The anti-abuse risk assessment refused this request.", {
      reason: "risk_denied",
      assessmentId: risk.assessmentId,
    });
  }

  try {
    return await ctx.db.$transaction(
      async (tx) => {
        const chain = chainAdapter(tx);
        if ((await tx.account.findFirst({ where: { chain: chain.chain, name }, select: { id: true } })) || (await chain.getAccount(name))) {
          throw nameTaken(name, input.kycCreateToken);
        }
        const personId = await kycGate(tx, ctx, input, requestedPersonId);
        const email = await contactGate(tx, ctx, "email", input.emailProofToken, org.requireEmailProofBeforeFreeCreate);
        const phone = await contactGate(tx, ctx, "phone", input.phoneProofToken, org.requirePhoneProofBeforeFreeCreate);
        const { transactionId } = await chain.createAccount({ name, ownerKey, activeKey });
        const now = new Date();
        const account = await tx.account.create({
          data: {
            orgId: org.id,
            chain: chain.chain,
            name,
            did: accountDid(chain.chain, name),
            ownerPublicKey: ownerKey,
            activePublicKey: activeKey,
            passkeyCredentialId: input.passkeyCredentialId,
            deviceFingerprintHash: input.deviceFingerprint ? sha256Hex(input.deviceFingerprint) : null,
            email,
            emailVerifiedAt: email ? now : null,
            phone,
            phoneVerifiedAt: phone ? now : null,
            chainTransactionId: transactionId,
          },
        });
        await emitEvent(tx, org.id, "account.created", { accountDid: account.did, lifecycle: account.lifecycle });
        await appendAudit(
          tx,
          { orgId: org.id, actor: ctx.actor },
          {
            action: "account.created",
            subjectType: "account",
            subject: account.did,
            data: {
              lifecycle: account.lifecycle,
              transactionId,
              personId,
              emailVerified: !!email,
              phoneVerified: !!phone,
              kycGate: org.requireKycBeforeFreeCreate,
              riskAssessmentId: risk.assessmentId,
              riskDecision: risk.decision,
            },
          },
        );
        return { ...accountView(account), transactionId };
      },
      { timeout: 30_000, maxWait: 10_000 },
    );
  } catch (err) {
    throw uniqueConflict(err, name, input.kycCreateToken) ?? err;
  }
}

async function kycGate(tx: Tx, ctx: ServiceContext, input: FreeAccountInput, requestedPersonId: string | null) {
  if (requestedPersonId && !(await tx.person.findFirst({ where: { id: requestedPersonId, orgId: ctx.org.id }, select: { id: true } }))) {
    throw notFound("Person");
  }
  if (!input.kycCreateToken) {
    if (ctx.org.requireKycBeforeFreeCreate) {
      throw forbidden(
        "kyc_required",
        "This organization requires an approved KYC before a free account: send the kycCreateToken from GET /v1/kyc/status.",
      );
    }
    return requestedPersonId;
  }
  const personId = await spendKycCreateToken(tx, ctx.org.id, input.kycCreateToken);
  if (requestedPersonId && requestedPersonId !== personId) {
    throw new AppError("VALIDATION_ERROR", "personDid does not match the person of the kycCreateToken.", {
      issues: [{ path: "body.personDid", message: "does not match the kycCreateToken's person" }],
    });
  }
  return personId;
}

/** Spends a given proof token (required by policy or not) and checks the address is free in this organization. */
async function contactGate(tx: Tx, ctx: ServiceContext, channel: "email" | "phone", token: string | undefined, required: boolean) {
  if (!token) {
    if (required) {
      throw forbidden(
        `${channel}_not_verified`,
        `This organization requires a verified ${channel} before a free account: send ${channel}ProofToken.`,
      );
    }
    return null;
  }
  const { address } = await spendProofToken(tx, { orgId: ctx.org.id, channel }, token);
  const taken = await tx.account.findFirst({ where: { orgId: ctx.org.id, [channel]: address }, select: { id: true } });
  if (taken)
    throw conflict(`${channel}_taken`, `This ${channel === "email" ? "email address" : "phone number"} is already bound to an account.`);
  return address;
}

export async function nameAvailable(ctx: ServiceContext, name: string) {
  if (!isValidAccountName(name)) {
    return {
      name,
      available: false,
      reason: "INVALID" as const,
      message: "Names are 1 to 12 characters of a-z, 1-5 and '.', not ending in '.'.",
    };
  }
  const chain = chainAdapter(ctx.db);
  const taken =
    (await ctx.db.account.findFirst({ where: { chain: chain.chain, name }, select: { id: true } })) || (await chain.getAccount(name));
  return taken
    ? { name, available: false, reason: "TAKEN" as const, message: "This name is taken." }
    : { name, available: true, message: "This name is available now; nothing is reserved and create checks again." };
}

export async function getAccount(ctx: ServiceContext, ref: string) {
  const account = await findAccount(ctx.db, ctx.org.id, ref);
  const bindings = await ctx.db.accountBinding.findMany({
    where: { orgId: ctx.org.id, accountId: account.id, revokedAt: null },
    orderBy: { createdAt: "asc" },
  });
  return accountView(account, bindings);
}

export async function listAccounts(ctx: ServiceContext, q: { limit: number; lifecycle?: Account["lifecycle"]; before?: string }) {
  const rows = await ctx.db.account.findMany({
    where: {
      orgId: ctx.org.id,
      ...(q.lifecycle ? { lifecycle: q.lifecycle } : {}),
      ...(q.before ? { createdAt: { lt: new Date(q.before) } } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: q.limit,
  });
  return {
    accounts: rows.map((a) => accountView(a)),
    nextBefore: rows.length === q.limit ? rows[rows.length - 1]!.createdAt.toISOString() : null,
  };
}

/** Suspends from any state; the previous lifecycle is kept so it can be reinstated. Suspending twice changes nothing. */
export async function suspendAccount(ctx: ServiceContext, ref: string) {
  return ctx.db.$transaction(async (tx) => {
    const account = await findAccount(tx, ctx.org.id, ref);
    if (account.lifecycle === "suspended")
      return { accountDid: account.did, lifecycle: account.lifecycle, previousLifecycle: account.lifecycleBeforeSuspend };
    const updated = await tx.account.update({
      where: { id: account.id },
      data: { lifecycle: "suspended", lifecycleBeforeSuspend: account.lifecycle },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "account.suspended",
        subjectType: "account",
        subject: account.did,
        data: { previousLifecycle: account.lifecycle },
      },
    );
    return { accountDid: updated.did, lifecycle: updated.lifecycle, previousLifecycle: account.lifecycle };
  });
}
