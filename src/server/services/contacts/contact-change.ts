import type { ContactChannel } from "@/generated/prisma/enums.ts";
import type { ServiceContext } from "../../context";
import { accountKey, openContact, sealContact } from "../../crypto/account-box";
import { randomToken } from "../../crypto/hash";
import { conflict, notFound } from "../../errors";
import { findAccount } from "../../platform/account-ref";
import { accountsWithContact, contactHash, maskEmail, maskPhone, normalizeEmail, normalizePhone } from "../../platform/contact-address";
import { createProofChallenge, verifyWalletProof, type WalletProof } from "../../platform/wallet-proof";
import { messaging } from "../../providers/messaging";
import { appendAudit } from "../audit";
import { confirmChallenge, startChallenge } from "./otp";

export const NONCE_TTL_SEC = 10 * 60;
export const SERVICE_NAME = "Bind Identity";

const mask = (channel: ContactChannel, address: string) => (channel === "email" ? maskEmail(address) : maskPhone(address));
const field = (channel: ContactChannel) => (channel === "email" ? "emailMasked" : "phoneMasked");

/**
 * The text a wallet shows and signs: service, action, account, subject, nonce and expiry, one per
 * line (docs/api/contract-decisions.md §5), so a person can read what they authorise.
 */
export function payloadToSign(p: { action: string; accountDid: string; subject: string; nonce: string; expiresAt: Date }) {
  return [
    `Service: ${SERVICE_NAME}`,
    `Action: ${p.action}`,
    `Account: ${p.accountDid}`,
    `Subject: ${p.subject}`,
    `Nonce: ${p.nonce}`,
    `Expires: ${p.expiresAt.toISOString()}`,
  ].join("\n");
}

/** POST /v1/accounts/contact/challenge: a single-use nonce for the account key to sign, in each proof form (wallet-proof.ts). */
export async function contactChallenge(ctx: ServiceContext, input: { accountDid: string; channel: ContactChannel }) {
  const account = await findAccount(ctx.db, ctx.org.id, input.accountDid);
  if (account.lifecycle === "suspended") throw conflict("account_suspended", "This account is suspended.");
  const nonce = randomToken(24);
  const expiresAt = new Date(Date.now() + NONCE_TTL_SEC * 1000);
  const text = payloadToSign({
    action: `change ${input.channel} contact`,
    accountDid: account.did,
    subject: `${input.channel} contact`,
    nonce,
    expiresAt,
  });
  return createProofChallenge(ctx.db, { account, purpose: "contact_change", channel: input.channel, nonce, text, expiresAt });
}

/**
 * POST /v1/accounts/contact/{email|phone}/start: authorised by the account's active key, not by
 * a session. The nonce is spent only by a valid signature; nothing about the account changes
 * until confirm.
 */
export async function startContactChange(
  ctx: ServiceContext,
  channel: ContactChannel,
  input: { accountDid: string; nonce: string; address: string } & WalletProof,
) {
  const account = await findAccount(ctx.db, ctx.org.id, input.accountDid);
  const row = await ctx.db.signatureNonce.findUnique({ where: { nonce: input.nonce } });
  if (!row || row.orgId !== ctx.org.id || row.accountId !== account.id || row.purpose !== "contact_change" || row.channel !== channel) {
    throw notFound("Contact-change challenge");
  }
  if (row.consumedAt) throw conflict("nonce_used", "This nonce was already used; request a new challenge.");
  if (row.expiresAt <= new Date()) throw conflict("nonce_expired", "This nonce has expired; request a new challenge.");

  // The account's active authority (or owner, which stands for it on chain) must sign.
  await verifyWalletProof(ctx.db, account, row, input, ["active"]);

  const address = channel === "email" ? normalizeEmail(input.address) : normalizePhone(input.address);
  const elsewhere = await ctx.db.account.findFirst({
    where: { ...accountsWithContact(ctx.org.id, channel, address), NOT: { id: account.id } },
    select: { id: true },
  });
  if (elsewhere)
    throw conflict(
      "contact_bound_elsewhere",
      `This ${channel === "email" ? "email address" : "phone number"} is bound to another account.`,
    );

  const spent = await ctx.db.signatureNonce.updateMany({ where: { id: row.id, consumedAt: null }, data: { consumedAt: new Date() } });
  if (spent.count === 0) throw conflict("nonce_used", "This nonce was already used; request a new challenge.");

  const started = startChallenge(ctx.db, {
    orgId: ctx.org.id,
    purpose: "contact_change",
    channel,
    address,
    accountId: account.id,
    clientIp: ctx.clientIp,
    message: (code) => ({
      subject: `Your verification code: ${code}`,
      text: `Your code to make this the ${channel === "email" ? "email address" : "phone number"} of account ${account.name} is ${code}. It expires in 10 minutes.`,
    }),
  });
  // No code went out (send cap, provider refusal): give the nonce back so the signed request can be retried.
  const { challenge, devCode } = await started.catch(async (err: unknown) => {
    await ctx.db.signatureNonce.updateMany({ where: { id: row.id }, data: { consumedAt: null } });
    throw err;
  });
  return {
    challengeId: challenge.id,
    expiresAt: challenge.expiresAt.toISOString(),
    [field(channel)]: mask(channel, address),
    ...(devCode ? { devCode } : {}),
  };
}

/**
 * POST /v1/accounts/contact/{email|phone}/confirm: detaches the old address and attaches the new
 * one in one transaction (the account is never without a verified address), then tells the
 * previous address. Confirming never creates or promotes a Person. The new address is sealed under
 * the account's data key (made now if the account has none yet), with its keyed hash beside it.
 */
export async function confirmContactChange(ctx: ServiceContext, channel: ContactChannel, input: { challengeId: string; code: string }) {
  const challenge = await confirmChallenge(ctx.db, { orgId: ctx.org.id, purpose: "contact_change", channel, ...input });
  const result = await ctx.db.$transaction(async (tx) => {
    const account = await tx.account.findFirst({ where: { id: challenge.accountId!, orgId: ctx.org.id } });
    if (!account) throw notFound("Account");
    const elsewhere = await tx.account.findFirst({
      where: { ...accountsWithContact(ctx.org.id, channel, challenge.address), NOT: { id: account.id } },
      select: { id: true },
    });
    if (elsewhere) throw conflict("contact_bound_elsewhere", "This address was bound to another account meanwhile.");
    const previous = openContact(channel === "email" ? account.email : account.phone, account.dataKeySealed);
    const now = new Date();
    const sealed = sealContact(await accountKey(tx, account.id), account.id, challenge.address);
    const hash = contactHash(ctx.org.id, channel, challenge.address);
    await tx.account.update({
      where: { id: account.id },
      data:
        channel === "email"
          ? { email: sealed, emailHash: hash, emailVerifiedAt: now }
          : { phone: sealed, phoneHash: hash, phoneVerifiedAt: now },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: `account.${channel}_changed`,
        subjectType: "account",
        subject: account.did,
        data: { previous: previous ? mask(channel, previous) : null, current: mask(channel, challenge.address) },
      },
    );
    return { account, previous };
  });
  if (result.previous && result.previous !== challenge.address) await notifyPrevious(ctx, channel, result.previous, result.account.name);
  return { accountDid: result.account.did, channel, changed: true as const, [field(channel)]: mask(channel, challenge.address) };
}

/** The change is committed; a failed notice is logged, not turned into an error the caller would retry. */
async function notifyPrevious(ctx: ServiceContext, channel: ContactChannel, previous: string, accountName: string) {
  const text = `The ${channel === "email" ? "email address" : "phone number"} of account ${accountName} was changed. If this was not you, contact the service that manages your account.`;
  try {
    const send = messaging(ctx.db);
    if (channel === "email")
      await send.sendEmail({ to: previous, subject: "Your account's email address was changed", text, orgId: ctx.org.id });
    else await send.sendSms({ to: previous, text, orgId: ctx.org.id });
  } catch (err) {
    ctx.log.warn({ channel, err: { message: (err as Error).message } }, "could not notify the previous contact address");
  }
}
