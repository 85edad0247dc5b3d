import "./openid4vc";
import { randomUUID } from "node:crypto";
import {
  Openid4vpVerifier,
  parseOpenid4VpAuthorizationResponsePayload,
  validateOpenid4vpAuthorizationResponsePayload,
} from "@openid4vc/openid4vp";
import { DcqlPresentationResult, DcqlQuery } from "dcql";
import type { z } from "zod";
import { publicUrl } from "@/env";
import type { WalletPresentation } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { randomToken } from "../../crypto/hash";
import { issuerDid, issuerSigningKey, signEd25519, verificationMethodId } from "../../crypto/issuer-keys";
import { open, seal } from "../../crypto/secret-box";
import type { Db, Tx } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { findAccount } from "../../platform/account-ref";
import { appendAudit } from "../audit";
import { CLAIMS, vct } from "./metadata";
import type { PresentationRequestInput, PresentationView } from "./presentations.schema";
import type { ProtocolAnswer, ProtocolRequest } from "./protocol";
import { recordReuse } from "./reuse";
import {
  type IssuerKeys,
  ourIssuerKeys,
  PresentationRefused,
  type Refusal,
  type VerifiedPresentation,
  verifySdJwtPresentation,
} from "./verify-presentation";

/** A presentation request is answered within 10 minutes, once. */
export const PRESENTATION_TTL_SEC = 10 * 60;
/** The DCQL credential query id of our wallet credential. */
export const CREDENTIAL_QUERY_ID = "account_binding";

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/** The verifier's client id (OpenID4VP 1.0 §5.9.3): our issuer's DID, which signs the request objects. */
export const verifierClientId = () => `decentralized_identifier:${issuerDid()}`;
export const requestObjectUrl = (id: string) => publicUrl(`/oid4vp/requests/${id}`);
export const responseUrl = (id: string) => publicUrl(`/oid4vp/responses/${id}`);
export const consentPageUrl = (id: string) => publicUrl(`/wallet/present/${id}`);

/** The `openid4vp://` link a wallet opens: the request by reference, fetched and checked by the wallet. */
export const walletRequestUri = (id: string) =>
  `openid4vp://?${new URLSearchParams({ client_id: verifierClientId(), request_uri: requestObjectUrl(id) }).toString()}`;

/** A DCQL query for one SD-JWT VC of type `vctValue`, asking for exactly these top-level claims. */
export function dcqlQueryFor(vctValue: string, claims: readonly string[], id = CREDENTIAL_QUERY_ID) {
  const query = {
    credentials: [{ id, format: "dc+sd-jwt" as const, meta: { vct_values: [vctValue] }, claims: claims.map((c) => ({ path: [c] })) }],
  };
  DcqlQuery.validate(DcqlQuery.parse(query));
  return query;
}

/** How each kind of request checks what the wallet sends, and what it does with a verified presentation. */
export type PresentationKind = {
  issuerKeys: (db: Db) => Promise<IssuerKeys>;
  vct: () => string[];
  /** Runs just before the transaction that marks the request verified, outside it (what cannot run inside one). */
  prepare?: (db: Db, row: WalletPresentation) => Promise<void>;
  /** Runs in the transaction that marks the request verified; returns what the tenant may read. */
  completed?: (tx: Tx, row: WalletPresentation, verified: VerifiedPresentation, now: Date) => Promise<void>;
  /** Where the wallet sends the person's browser afterwards (direct_post answer), when anywhere. */
  redirectUri?: (row: WalletPresentation) => string | null;
  /** The claims' names in words for the consent page; ours (metadata CLAIMS) when absent. */
  labels?: Record<string, { label: string; description: string }>;
  /** False when the disclosed values must not be kept (identity data used once, in memory). */
  keepDisclosed?: boolean;
};

const kinds = new Map<string, PresentationKind>([
  ["verify", { issuerKeys: async () => ourIssuerKeys, vct: () => [vct()], redirectUri: (row) => consentPageUrl(row.id) }],
]);

/** Another kind of request (the EU wallet identity verification registers `kyc_pid`). */
export function registerPresentationKind(name: string, kind: PresentationKind): void {
  kinds.set(name, kind);
}

const statusOf = (row: WalletPresentation, now: Date): z.infer<typeof PresentationView>["status"] =>
  row.status === "pending" && row.expiresAt <= now ? "expired" : (row.status as z.infer<typeof PresentationView>["status"]);

function disclosedOf(row: WalletPresentation): Record<string, string | number | boolean> | null {
  if (!row.resultSealed) return null;
  try {
    return JSON.parse(open(row.resultSealed)) as Record<string, string | number | boolean>;
  } catch {
    return null;
  }
}

export function presentationView(row: WalletPresentation, now: Date): z.input<typeof PresentationView> {
  return {
    presentationId: row.id,
    status: statusOf(row, now),
    claims: row.claims,
    requestUri: walletRequestUri(row.id),
    consentPageUrl: consentPageUrl(row.id),
    dcqlQuery: row.dcqlQuery as Record<string, unknown>,
    disclosed: row.status === "verified" ? disclosedOf(row) : null,
    reuse: row.sourceOrgId !== null && row.sourceOrgId !== row.orgId,
    refusal: row.refusal,
    expiresAt: row.expiresAt.toISOString(),
    respondedAt: row.respondedAt?.toISOString() ?? null,
  };
}

/**
 * POST /v1/wallet/presentations: a request for exactly these claims of our wallet credential,
 * answered by the person's wallet (OpenID4VP 1.0, DCQL, direct_post). The credential may have been
 * issued for another organization: presenting it is the person's consent to that reuse.
 */
export async function createPresentationRequest(ctx: ServiceContext, input: z.output<typeof PresentationRequestInput>) {
  let accountDid: string | null = null;
  if (input.accountDid) accountDid = (await findAccount(ctx.db, ctx.org.id, input.accountDid)).did;
  const claims = accountDid && !input.claims.includes("account") ? [...input.claims, "account"] : [...input.claims];
  const now = ctx.now();
  const row = await ctx.db.$transaction(async (tx) => {
    const created = await tx.walletPresentation.create({
      data: {
        id: randomUUID(),
        orgId: ctx.org.id,
        kind: "verify",
        dcqlQuery: dcqlQueryFor(vct(), claims),
        claims,
        purpose: input.purpose ?? null,
        accountDid,
        nonce: randomToken(24),
        expiresAt: new Date(now.getTime() + PRESENTATION_TTL_SEC * 1000),
        createdAt: now,
      },
    });
    await appendAudit(
      tx,
      { orgId: ctx.org.id, actor: ctx.actor },
      { action: "wallet.presentation_requested", subjectType: "presentation", subject: created.id, data: { claims, accountDid } },
    );
    return created;
  });
  return presentationView(row, now);
}

export async function getPresentation(ctx: ServiceContext, id: string) {
  const row = await ctx.db.walletPresentation.findFirst({ where: { id, orgId: ctx.org.id, kind: "verify" } });
  if (!row) throw notFound("Presentation request");
  return presentationView(row, ctx.now());
}

const jwtPart = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/**
 * GET /oid4vp/requests/{id}: the signed request object (JAR, RFC 9101) the wallet fetches by
 * `request_uri`: EdDSA by our issuer key, `kid` its DID URL, so the wallet checks it against
 * did.json. Carries the DCQL query, the nonce, the response URI and the organization's name.
 */
export async function requestObject(db: Db, id: string, now = new Date()): Promise<{ status: number; jwt?: string }> {
  const row = await db.walletPresentation.findUnique({ where: { id } });
  if (row?.status !== "pending" || row.expiresAt <= now) return { status: 404 };
  const org = await db.organization.findUnique({ where: { id: row.orgId }, select: { name: true } });
  const key = issuerSigningKey();
  const verifier = new Openid4vpVerifier({
    callbacks: {
      signJwt: async (_signer: unknown, { header, payload }: { header: object; payload: object }) => {
        const input = `${jwtPart(header)}.${jwtPart(payload)}`;
        const signature = Buffer.from(signEd25519(new TextEncoder().encode(input), key)).toString("base64url");
        return { jwt: `${input}.${signature}`, signerJwk: undefined as never };
      },
    } as never,
  });
  const { jar } = await verifier.createOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: {
      response_type: "vp_token",
      client_id: verifierClientId(),
      response_uri: responseUrl(row.id),
      response_mode: "direct_post",
      nonce: row.nonce,
      state: row.id,
      dcql_query: row.dcqlQuery as Record<string, unknown>,
      client_metadata: {
        client_name: org?.name ?? "Relying party",
        vp_formats_supported: { "dc+sd-jwt": { "sd-jwt_alg_values": ["EdDSA", "ES256"], "kb-jwt_alg_values": ["EdDSA", "ES256"] } },
      },
    },
    jar: {
      requestUri: requestObjectUrl(row.id),
      jwtSigner: { method: "did", didUrl: verificationMethodId(key), alg: "EdDSA" },
      expiresInSeconds: Math.max(1, Math.floor((row.expiresAt.getTime() - now.getTime()) / 1000)),
    },
    now,
  });
  return { status: 200, jwt: jar?.authorizationRequestJwt };
}

const DESCRIPTIONS: Record<string, string> = {
  invalid_request: "The response is malformed, or answers a request that is unknown, expired or already answered.",
  access_denied: "The presentation was refused.",
};
const oauthError = (error: keyof typeof DESCRIPTIONS, status = 400): ProtocolAnswer => ({
  status,
  body: { error, error_description: DESCRIPTIONS[error]! },
  headers: NO_STORE,
});

/** Marks a pending request answered, once: false when another answer (or a decline) got there first. */
async function settle(tx: Tx, row: WalletPresentation, data: Partial<WalletPresentation>, now: Date): Promise<boolean> {
  const done = await tx.walletPresentation.updateMany({
    where: { id: row.id, status: "pending", expiresAt: { gt: now } },
    data: { ...data, respondedAt: now } as never,
  });
  return done.count === 1;
}

async function refuse(db: Db, row: WalletPresentation, code: Refusal, now: Date) {
  await db.$transaction(async (tx) => {
    if (!(await settle(tx, row, { status: "refused", refusal: code }, now))) return;
    await appendAudit(
      tx,
      { orgId: row.orgId, actor: { type: "system", label: "oid4vp" } },
      { action: "wallet.presentation_refused", subjectType: "presentation", subject: row.id, data: { refusal: code, kind: row.kind } },
    );
  });
}

/**
 * POST /oid4vp/responses/{id} (direct_post, form-encoded `vp_token`, `state`): the first answer
 * decides. Checked: the response's shape against the request (the library), then the one SD-JWT
 * VC presentation (verifySdJwtPresentation), then that it satisfies the DCQL query, then the
 * account when one was asked for. Only the claims asked for are kept, sealed.
 */
export async function responseEndpoint(db: Db, id: string, req: ProtocolRequest, now = new Date()): Promise<ProtocolAnswer> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return oauthError("invalid_request");
  const row = await db.walletPresentation.findUnique({ where: { id } });
  if (row?.status !== "pending" || row.expiresAt <= now) return oauthError("invalid_request");
  const kind = kinds.get(row.kind);
  if (!kind) return oauthError("invalid_request");

  const form = Object.fromEntries(new URLSearchParams(req.body.toString("utf8")));
  let presentation: string | undefined;
  try {
    const payload = parseOpenid4VpAuthorizationResponsePayload(form);
    const validated = validateOpenid4vpAuthorizationResponsePayload({
      authorizationRequestPayload: {
        response_type: "vp_token",
        client_id: verifierClientId(),
        nonce: row.nonce,
        state: row.id,
        response_uri: responseUrl(row.id),
        response_mode: "direct_post",
        dcql_query: row.dcqlQuery as Record<string, unknown>,
      },
      authorizationResponsePayload: payload,
    });
    if (validated.type !== "dcql") throw new Error("not dcql");
    const entries =
      validated.dcql.presentations[CREDENTIAL_QUERY_ID] ?? validated.dcql.presentations[Object.keys(validated.dcql.presentations)[0]!];
    presentation = entries?.length === 1 && typeof entries[0] === "string" ? entries[0] : undefined;
  } catch {
    presentation = undefined;
  }
  if (!presentation) {
    await refuse(db, row, "invalid_response", now);
    return oauthError("invalid_request");
  }

  let verified: VerifiedPresentation;
  let source: { orgId: string; personId: string; id: string; accountId: string | null } | null = null;
  try {
    verified = await verifySdJwtPresentation(db, presentation, {
      nonce: row.nonce,
      audience: verifierClientId(),
      vct: kind.vct(),
      now,
      issuerKeys: await kind.issuerKeys(db),
    });
    const query = DcqlQuery.parse(row.dcqlQuery as never);
    const queryId = query.credentials[0]!.id;
    const result = DcqlPresentationResult.fromDcqlPresentation(
      {
        [queryId]: [
          { credential_format: "dc+sd-jwt", vct: verified.vct, claims: verified.payload as never, cryptographic_holder_binding: true },
        ],
      },
      { dcqlQuery: query },
    );
    if (!result.can_be_satisfied) throw new PresentationRefused("claims_missing");
    if (row.accountDid && verified.payload.account !== row.accountDid) throw new PresentationRefused("account_mismatch");
    source = await db.walletOffer.findUnique({
      where: { credentialHash: verified.credentialHash },
      select: { orgId: true, personId: true, id: true, accountId: true },
    });
    if (source) await refuseWhenSuspended(db, source);
  } catch (err) {
    if (!(err instanceof PresentationRefused)) throw err;
    await refuse(db, row, err.code, now);
    return oauthError("access_denied");
  }

  // Exactly the claims asked for, whatever else a careless wallet disclosed.
  const disclosed = Object.fromEntries(row.claims.filter((c) => c in verified.payload).map((c) => [c, verified.payload[c]]));
  await kind.prepare?.(db, row);
  const answered = await db.$transaction(
    async (tx) => {
      const marked = await settle(
        tx,
        row,
        {
          status: "verified",
          resultSealed: kind.keepDisclosed === false ? null : seal(JSON.stringify(disclosed)),
          sourceOrgId: source?.orgId ?? null,
        },
        now,
      );
      if (!marked) return false;
      await kind.completed?.(tx, row, verified, now);
      if (row.kind === "verify") await recordReuse(tx, row, source, now);
      return true;
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
  if (!answered) return oauthError("invalid_request");
  const redirect = kind.redirectUri?.(row) ?? null;
  return { status: 200, body: redirect ? { redirect_uri: redirect } : {}, headers: NO_STORE };
}

/**
 * What the status list cannot say: a wallet credential carries only its binding's revocation bit,
 * so a person now flagged by sanctions screening or erased, or a binding suspended, is refused
 * here from our own records (`suspended`), for credentials we issued. A verifier elsewhere sees
 * only the revocation (docs/api/guides/wallets.md).
 */
async function refuseWhenSuspended(db: Db, source: { orgId: string; personId: string; accountId: string | null }) {
  const person = await db.person.findFirst({ where: { id: source.personId, orgId: source.orgId } });
  if (!person || person.erasedAt || person.sanctionsFlag) throw new PresentationRefused("suspended");
  if (!source.accountId) return;
  const binding = await db.accountBinding.findFirst({
    where: { orgId: source.orgId, accountId: source.accountId, personId: source.personId },
    orderBy: { createdAt: "desc" },
    select: { status: true },
  });
  if (binding?.status === "suspended") throw new PresentationRefused("suspended");
}

/** POST /oid4vp/requests/{id}/decline (the consent page's Decline): nothing is sent; the tenant reads `declined`. */
export async function declinePresentation(db: Db, id: string, now = new Date()): Promise<{ status: string }> {
  const row = await db.walletPresentation.findUnique({ where: { id } });
  if (!row) throw notFound("Presentation request");
  const declined = await db.$transaction(async (tx) => {
    if (!(await settle(tx, row, { status: "declined" }, now))) return false;
    await appendAudit(
      tx,
      { orgId: row.orgId, actor: { type: "system", label: "oid4vp" } },
      { action: "wallet.presentation_declined", subjectType: "presentation", subject: row.id, data: { claims: row.claims } },
    );
    return true;
  });
  if (!declined) {
    const now2 = await db.walletPresentation.findUnique({ where: { id } });
    const status = now2 ? statusOf(now2, now) : "expired";
    if (status !== "declined")
      throw new AppError("CONFLICT", "This request was already answered or has expired.", { reason: "not_pending", status });
  }
  return { status: "declined" };
}

/** What the hosted consent page shows: who asks, for what and why; never a value. Null for an unknown id. */
export async function consentView(db: Db, id: string, now = new Date()) {
  const row = await db.walletPresentation.findUnique({ where: { id } });
  if (!row) return null;
  const org = await db.organization.findUnique({ where: { id: row.orgId }, select: { name: true } });
  const custom = kinds.get(row.kind)?.labels;
  const labels = new Map(custom ? Object.entries(custom).map(([name, c]) => [name, c]) : CLAIMS.map((c) => [c.name, c]));
  return {
    id: row.id,
    kind: row.kind,
    status: statusOf(row, now),
    verifier: org?.name ?? "An organization",
    purpose: row.purpose,
    claims: row.claims.map((name) => ({ name, label: labels.get(name)?.label ?? name, description: labels.get(name)?.description ?? "" })),
    requestUri: walletRequestUri(row.id),
    expiresAt: row.expiresAt.toISOString(),
  };
}
