import type { Logger } from "pino";
import { env, publicUrl } from "@/env";
import type { BindSession, Organization } from "@/generated/prisma/client.ts";
import { actorId, type ServiceContext } from "../../context";
import { randomToken, sha256Hex } from "../../crypto/hash";
import { issuerDid } from "../../crypto/issuer-keys";
import type { Db } from "../../db/client";
import { AppError, conflict, notFound, rateLimited } from "../../errors";
import { personDidOf } from "../../platform/account-ref";
import { hitWindow } from "../../platform/rate-limit";
import type { WalletProof } from "../../platform/wallet-proof";
import { chainAdapter, walletNodeUrl } from "../../providers/chain";
import { appendAudit } from "../audit";
import { assertCanBind, bindChallenge, bindConfirm, loadSubjects } from "./bind";

/** How long a bind page link stays usable (docs/api/guides/binding.md, "Hosted bind page"). */
export const BIND_SESSION_TTL_SEC = 60 * 60;
/** Challenges one link may ask for: a user retrying is a handful, a script filling the nonce table is not. */
export const HOSTED_CHALLENGES_PER_SESSION = 30;
/** Calls of the public bind page endpoints per client IP and minute. */
export const HOSTED_CALLS_PER_IP_MINUTE = 60;

/** What a public call knows: no organization until the token names one. */
export type HostedContext = { db: Db; clientIp: string; correlationId: string; log: Logger };

type Status = "open" | "bound" | "expired";

function pageUrl(token: string): string {
  return publicUrl(`/bind#${token}`);
}

/**
 * POST /v1/bind/sessions: a link to the hosted bind page for this account and person. The same
 * checks as a challenge come first (approved person, account not bound), so a link that can only
 * fail is never handed out. The token is returned once, in the link's fragment; only its hash is kept.
 */
export async function createBindSession(ctx: ServiceContext, input: { accountDid: string; personDid: string; redirectUrl?: string }) {
  const { account, person } = await loadSubjects(ctx, input);
  await assertCanBind(ctx, account, person);
  const token = randomToken(32);
  const expiresAt = new Date(ctx.now().getTime() + BIND_SESSION_TTL_SEC * 1000);
  const session = await ctx.db.$transaction(async (tx) => {
    const row = await tx.bindSession.create({
      data: {
        orgId: ctx.org.id,
        accountId: account.id,
        personId: person.id,
        tokenHash: sha256Hex(token),
        redirectUrl: input.redirectUrl ?? null,
        createdBy: actorId(ctx.actor),
        expiresAt,
      },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      {
        action: "bind.session_created",
        subjectType: "account",
        subject: account.did,
        data: {
          sessionId: row.id,
          personDid: personDidOf(issuerDid(), person.id),
          redirectOrigin: input.redirectUrl ? new URL(input.redirectUrl).origin : null,
        },
      },
    );
    return row;
  });
  return { sessionId: session.id, url: pageUrl(token), expiresAt: expiresAt.toISOString(), redirectUrl: session.redirectUrl };
}

/** Whether a challenge this session handed out was spent: that happens only in the transaction that binds. */
async function sessionBound(db: Db, sessionId: string): Promise<boolean> {
  const spent = await db.signatureNonce.findFirst({ where: { bindSessionId: sessionId, consumedAt: { not: null } }, select: { id: true } });
  return !!spent;
}

async function statusOf(db: Db, session: BindSession, now: Date): Promise<Status> {
  if (await sessionBound(db, session.id)) return "bound";
  return session.expiresAt <= now ? "expired" : "open";
}

async function bindingOf(db: Db, session: BindSession) {
  return db.accountBinding.findFirst({
    // By the organization too: the bindings' indexes all start with it.
    where: { orgId: session.orgId, accountId: session.accountId, personId: session.personId },
    orderBy: { createdAt: "desc" },
  });
}

/** The tenant's redirect with the result in its query, or null when the session has none. */
function redirectTo(session: BindSession, bindingId: string | undefined): string | null {
  if (!session.redirectUrl) return null;
  const url = new URL(session.redirectUrl);
  url.searchParams.set("bindSession", session.id);
  url.searchParams.set("status", "bound");
  if (bindingId) url.searchParams.set("bindingId", bindingId);
  return url.toString();
}

/** GET /v1/bind/sessions/{id}: what the tenant's redirect handler reads, with the credential once bound. */
export async function getBindSession(ctx: ServiceContext, id: string) {
  const session = await ctx.db.bindSession.findFirst({ where: { id, orgId: ctx.org.id }, include: { account: true } });
  if (!session) throw notFound("Bind session");
  const status = await statusOf(ctx.db, session, ctx.now());
  const binding = status === "bound" ? await bindingOf(ctx.db, session) : null;
  return {
    sessionId: session.id,
    status,
    accountDid: session.account.did,
    personDid: personDidOf(issuerDid(), session.personId),
    redirectUrl: session.redirectUrl,
    createdAt: session.createdAt.toISOString(),
    expiresAt: session.expiresAt.toISOString(),
    binding: binding
      ? {
          bindingId: binding.id,
          status: binding.status,
          bindingVcHash: binding.bindingVcHash,
          credential: binding.credential as Record<string, unknown>,
        }
      : null,
  };
}

async function spendIpBudget(hc: HostedContext) {
  const hit = await hitWindow(hc.db, `bind-page:ip:${hc.clientIp}`, HOSTED_CALLS_PER_IP_MINUTE, 60);
  if (hit.exceeded) throw rateLimited(hit.resetSec, "Too many requests from this address; retry later.");
}

/** The session a page's token names, with its organization; one unknown answer for every bad token. */
async function sessionByToken(hc: HostedContext, token: string) {
  await spendIpBudget(hc);
  const session = await hc.db.bindSession.findUnique({
    where: { tokenHash: sha256Hex(token) },
    include: { account: true, person: true },
  });
  if (!session) throw notFound("Bind session");
  const org = await hc.db.organization.findUniqueOrThrow({ where: { id: session.orgId } });
  return { session, org };
}

/** The page acts for the organization that asked for the link; its audit entries say the bind page did. */
function pageContext(hc: HostedContext, org: Organization, session: BindSession): ServiceContext {
  return {
    db: hc.db,
    org,
    actor: { type: "system", label: `bind_page:${session.id}` },
    correlationId: hc.correlationId,
    clientIp: hc.clientIp,
    log: hc.log,
    now: () => new Date(),
  };
}

function assertOpen(status: Status) {
  if (status === "bound") throw conflict("already_bound", "This account is already bound; the link has done its work.");
  if (status === "expired") throw conflict("session_expired", "This link has expired; ask the app that sent you for a new one.");
}

/** POST /v1/bind/hosted/view: what the page shows, in words, before the user connects a wallet. */
export async function viewHostedBind(hc: HostedContext, token: string) {
  const { session, org } = await sessionByToken(hc, token);
  const status = await statusOf(hc.db, session, new Date());
  const binding = status === "bound" ? await bindingOf(hc.db, session) : null;
  const { chainId } = await chainAdapter(hc.db).getInfo();
  return {
    status,
    organization: { name: org.name },
    account: { did: session.account.did, name: session.account.name, chain: session.account.chain },
    person: {
      did: personDidOf(issuerDid(), session.personId),
      kycLevel: session.person.kycLevel,
      verifiedAt: session.person.reviewedAt?.toISOString() ?? null,
      country: session.person.country,
    },
    chain: { id: chainId, url: walletNodeUrl() },
    sandboxWallet: env().BI_ENV !== "production",
    expiresAt: session.expiresAt.toISOString(),
    redirectTo: status === "bound" ? redirectTo(session, binding?.id) : null,
  };
}

/** POST /v1/bind/hosted/challenge: a bind challenge for the link's account and person, tied to the link. */
export async function hostedBindChallenge(hc: HostedContext, token: string) {
  const { session, org } = await sessionByToken(hc, token);
  assertOpen(await statusOf(hc.db, session, new Date()));
  const perSession = await hitWindow(hc.db, `bind-page:session:${session.id}`, HOSTED_CHALLENGES_PER_SESSION, BIND_SESSION_TTL_SEC);
  if (perSession.exceeded) throw rateLimited(perSession.resetSec, "This link has asked for too many challenges; ask for a new link.");
  const ctx = pageContext(hc, org, session);
  return bindChallenge(
    ctx,
    { accountDid: session.account.did, personDid: personDidOf(issuerDid(), session.personId) },
    { bindSessionId: session.id },
  );
}

/**
 * POST /v1/bind/hosted/confirm: the wallet's proof for a challenge this link handed out, checked
 * and bound exactly as POST /v1/bind/confirm does. A second confirm of a link that is bound (a
 * double click, a retry after a lost answer) answers the same result and binds nothing more.
 */
export async function hostedBindConfirm(hc: HostedContext, input: { token: string; nonce: string } & WalletProof) {
  const { session, org } = await sessionByToken(hc, input.token);
  const done = async () => {
    const binding = await bindingOf(hc.db, session);
    return {
      bound: true as const,
      accountDid: session.account.did,
      bindingVcHash: binding?.bindingVcHash ?? "",
      redirectTo: redirectTo(session, binding?.id),
    };
  };
  const status = await statusOf(hc.db, session, new Date());
  if (status === "bound") return done();
  assertOpen(status);
  const nonce = await hc.db.signatureNonce.findUnique({ where: { nonce: input.nonce }, select: { bindSessionId: true } });
  if (nonce?.bindSessionId !== session.id) throw notFound("Bind challenge");
  const { token: _token, ...proof } = input;
  try {
    await bindConfirm(pageContext(hc, org, session), {
      ...proof,
      accountDid: session.account.did,
      personDid: personDidOf(issuerDid(), session.personId),
    });
  } catch (err) {
    // Two confirms of one link racing: the loser finds the winner's binding.
    if (err instanceof AppError && err.code === "CONFLICT" && (await sessionBound(hc.db, session.id))) return done();
    throw err;
  }
  return done();
}
