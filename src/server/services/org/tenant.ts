import type { Organization } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { randomToken } from "../../crypto/hash";
import { seal } from "../../crypto/secret-box";
import type { Prisma, Tx } from "../../db/client";
import { AppError, validationError } from "../../errors";
import { compileCidrs } from "../../net/cidr";
import { orgChanged } from "../../platform/auth-cache";
import { canonicalCidr } from "../../platform/cidr.schema";
import { isCountryCode } from "../../platform/countries";
import { PLANS } from "../../platform/plans";
import { appendAudit } from "../audit";
import type { CountryPolicyInput, IpAllowlistInput, PolicyPatchInput } from "./tenant.schema";

const POLICY_FLAGS = [
  "requireEmailProofBeforeFreeCreate",
  "requirePhoneProofBeforeFreeCreate",
  "requireKycBeforeFreeCreate",
  "requireSecondApprovalToClearAml",
  "walletCredentialCountry",
] as const;

export const policyView = (org: Organization) => ({
  requireEmailProofBeforeFreeCreate: org.requireEmailProofBeforeFreeCreate,
  requirePhoneProofBeforeFreeCreate: org.requirePhoneProofBeforeFreeCreate,
  requireKycBeforeFreeCreate: org.requireKycBeforeFreeCreate,
  requireSecondApprovalToClearAml: org.requireSecondApprovalToClearAml,
  walletCredentialCountry: org.walletCredentialCountry,
});

const countryPolicyView = (org: Organization) => ({ allowedCountries: org.allowedCountries, blockedCountries: org.blockedCountries });

/** The organization's security posture, as a tenant backend may read it with the `read` scope. */
export const tenantView = (org: Organization) => ({
  organizationId: org.id,
  name: org.name,
  environment: org.environment,
  plan: { id: org.plan, name: PLANS[org.plan].name, limits: PLANS[org.plan].limits },
  kybStatus: org.kybStatus,
  signingEnabled: org.signingEnabled,
  ipAllowlist: { cidrs: org.ipAllowlist },
  countryPolicy: countryPolicyView(org),
  policy: policyView(org),
  dpaAcceptedAt: org.dpaAcceptedAt?.toISOString() ?? null,
  createdAt: org.createdAt.toISOString(),
});

/** The admin's view adds the organization's own contact details; never the console password hash or secrets. */
export const adminTenantView = (org: Organization) => ({
  ...tenantView(org),
  contactEmail: org.contactEmail,
  updatedAt: org.updatedAt.toISOString(),
});

export async function getTenant(ctx: ServiceContext) {
  return tenantView(ctx.org);
}

export async function getAdminTenant(ctx: ServiceContext) {
  return adminTenantView(ctx.org);
}

/**
 * Locks the organization row for the rest of `tx`: concurrent admin changes queue up, so each
 * audit entry's `before` is exactly what its change replaced. NO KEY UPDATE, not UPDATE: it does
 * not block the foreign-key checks (KEY SHARE) of other writers' inserts that reference this
 * organization, so an admin change never stalls account creation or audit appends.
 */
async function lockedOrg(tx: Tx, orgId: string): Promise<Organization> {
  await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${orgId}::uuid FOR NO KEY UPDATE`;
  return tx.organization.findUniqueOrThrow({ where: { id: orgId } });
}

const auditOrg = (tx: Tx, ctx: ServiceContext, action: string, data: Prisma.InputJsonObject) =>
  appendAudit(tx, { orgId: ctx.org.id, actor: ctx.actor }, { action, subjectType: "organization", subject: ctx.org.id, data });

/**
 * Drops this organization's cached posture (auth-cache.ts) once the change has committed, so this
 * instance answers the next request with it; other instances hear the database's NOTIFY.
 */
async function afterOrgChange<T>(ctx: ServiceContext, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } finally {
    orgChanged(ctx.org.id);
  }
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Sets the given policy flags; a request that changes nothing writes nothing. */
export async function updatePolicy(ctx: ServiceContext, input: PolicyPatchInput) {
  return afterOrgChange(
    ctx,
    ctx.db.$transaction(async (tx) => {
      const org = await lockedOrg(tx, ctx.org.id);
      const before = policyView(org);
      const changes: Partial<Record<(typeof POLICY_FLAGS)[number], boolean>> = {};
      for (const flag of POLICY_FLAGS) {
        const v = input[flag];
        if (v !== undefined && v !== before[flag]) changes[flag] = v;
      }
      if (!Object.keys(changes).length) return before;
      const after = policyView(await tx.organization.update({ where: { id: org.id }, data: changes }));
      await auditOrg(tx, ctx, "policy.updated", { before, after, changed: Object.keys(changes) });
      return after;
    }),
  );
}

/**
 * Replaces the IP allowlist with the normalised, de-duplicated entries (in the order given).
 * It fails closed from the next request on, so the answer warns when the caller's own address
 * is outside the new list.
 */
export async function setIpAllowlist(ctx: ServiceContext, input: IpAllowlistInput) {
  const cidrs: string[] = [];
  input.cidrs.forEach((raw, i) => {
    const c = canonicalCidr(raw);
    if (c === null) throw validationError([{ path: ["cidrs", i], message: `cidrs[${i}] is not a valid CIDR or address` }]);
    if (!cidrs.includes(c)) cidrs.push(c);
  });
  const excluded = cidrs.length > 0 && !compileCidrs(cidrs).contains(ctx.clientIp);
  const answer = {
    cidrs,
    ...(excluded
      ? { warning: `Your address ${ctx.clientIp} is not on this list: from your next request on, calls from it are refused with 403.` }
      : {}),
  };
  return afterOrgChange(
    ctx,
    ctx.db.$transaction(async (tx) => {
      const org = await lockedOrg(tx, ctx.org.id);
      if (sameList(org.ipAllowlist, cidrs)) return answer;
      await tx.organization.update({ where: { id: org.id }, data: { ipAllowlist: cidrs } });
      await auditOrg(tx, ctx, "ip_allowlist.updated", { before: org.ipAllowlist, after: cidrs });
      return answer;
    }),
  );
}

const normaliseCountries = (list?: string[]) => (list ? [...new Set(list.map((c) => c.toUpperCase()))].sort() : undefined);

/**
 * Sets either country list (upper case, de-duplicated, sorted); an omitted list is left as it
 * is. Codes must be assigned ISO 3166-1 alpha-2 codes: a list that names any other is refused
 * whole, naming every offending code.
 */
export async function setCountryPolicy(ctx: ServiceContext, input: CountryPolicyInput) {
  const allowed = normaliseCountries(input.allowedCountries);
  const blocked = normaliseCountries(input.blockedCountries);
  const invalid = [...new Set([...(allowed ?? []), ...(blocked ?? [])])].filter((c) => !isCountryCode(c)).sort();
  if (invalid.length) {
    throw new AppError("INVALID_COUNTRY_CODE", `Not assigned ISO 3166-1 alpha-2 codes: ${invalid.join(", ")}.`, { invalid });
  }
  return afterOrgChange(
    ctx,
    ctx.db.$transaction(async (tx) => {
      const org = await lockedOrg(tx, ctx.org.id);
      const before = countryPolicyView(org);
      const after = { allowedCountries: allowed ?? before.allowedCountries, blockedCountries: blocked ?? before.blockedCountries };
      if (sameList(before.allowedCountries, after.allowedCountries) && sameList(before.blockedCountries, after.blockedCountries))
        return before;
      await tx.organization.update({ where: { id: org.id }, data: after });
      await auditOrg(tx, ctx, "country_policy.updated", { before, after });
      return after;
    }),
  );
}

export const SIGNING_SECRET_WARNING =
  "Store this secret now: it is shown once. From now on every request must carry X-BI-Timestamp and X-BI-Signature made with it; unsigned requests answer 401.";

/**
 * Turns request signing on with a fresh secret, returned once and stored only sealed. Enabling
 * again rotates the secret: the previous one stops working at once.
 */
export async function enableSigning(ctx: ServiceContext) {
  // Not "bi_": a pasted secret must never look like an API key.
  const signingSecret = `bisig_${randomToken(32)}`;
  return afterOrgChange(
    ctx,
    ctx.db.$transaction(async (tx) => {
      const org = await lockedOrg(tx, ctx.org.id);
      await tx.organization.update({ where: { id: org.id }, data: { signingEnabled: true, signingSecretEnc: seal(signingSecret) } });
      await auditOrg(tx, ctx, "signing.enabled", { rotated: org.signingEnabled });
      return { signingEnabled: true as const, signingSecret, warning: SIGNING_SECRET_WARNING };
    }),
  );
}

/** Turns request signing off and forgets the secret; already off writes nothing. */
export async function disableSigning(ctx: ServiceContext) {
  return afterOrgChange(
    ctx,
    ctx.db.$transaction(async (tx) => {
      const org = await lockedOrg(tx, ctx.org.id);
      if (org.signingEnabled || org.signingSecretEnc) {
        await tx.organization.update({ where: { id: org.id }, data: { signingEnabled: false, signingSecretEnc: null } });
        await auditOrg(tx, ctx, "signing.disabled", { wasEnabled: org.signingEnabled });
      }
      return { signingEnabled: false as const };
    }),
  );
}

/** Records acceptance of the data processing agreement once; later calls answer the first time. */
export async function acceptDpa(ctx: ServiceContext) {
  return afterOrgChange(
    ctx,
    ctx.db.$transaction(async (tx) => {
      const org = await lockedOrg(tx, ctx.org.id);
      if (org.dpaAcceptedAt) return { dpaAcceptedAt: org.dpaAcceptedAt.toISOString() };
      const at = ctx.now();
      await tx.organization.update({ where: { id: org.id }, data: { dpaAcceptedAt: at } });
      await auditOrg(tx, ctx, "dpa.accepted", { dpaAcceptedAt: at.toISOString() });
      return { dpaAcceptedAt: at.toISOString() };
    }),
  );
}
