import type { DbOrTx } from "../../db/client";
import type { AttestationIssue, AttestationReason, AttestationRow } from "../../providers/chain/attestation";

/**
 * What the attestation table should say about an account, from the database alone
 * (docs/api/guides/onchain.md, "Publishing from the service"): the account's latest binding, for
 * an organization that publishes, whose person is not erased. Null: the table should have no row.
 */
export type DesiredAttestation = AttestationIssue & {
  status: "active" | "suspended" | "revoked";
  /** Why a suspended binding is suspended, as the contract's public reason code. */
  suspendReason: AttestationReason;
};

/** Every binding is made by a signature of the account's own wallet over a KYC-approved person. */
const LEVEL_BOUND = 2;
const DAY_MS = 86_400_000;

type Row = {
  accountId: string;
  name: string;
  did: string;
  enabled: boolean | null;
  publishCountry: boolean | null;
  validDays: number | null;
  orgNumber: bigint | null;
  status: "active" | "suspended" | "revoked" | null;
  suspendedFor: string[] | null;
  boundAt: Date | null;
  pairwiseId: string | null;
  country: string | null;
  erasedAt: Date | null;
  statusIndex: number | null;
};

export type AccountTarget = { name: string; did: string; desired: DesiredAttestation | null };

/** The accounts' names and what their rows should be (null: no row), read in one query. */
export async function desiredAttestations(db: DbOrTx, accountIds: string[]): Promise<Map<string, AccountTarget>> {
  const out = new Map<string, AccountTarget>();
  if (!accountIds.length) return out;
  const rows = await db.$queryRaw<Row[]>`
    SELECT a.id::text AS "accountId", a.name, a.did, s.enabled, s."publishCountry", s."validDays", s."orgNumber",
           b.status::text AS status, b."suspendedFor", b."createdAt" AS "boundAt",
           p."pairwiseId", p.country, p."erasedAt", e.index AS "statusIndex"
    FROM accounts a
    LEFT JOIN attestation_settings s ON s."orgId" = a."orgId"
    LEFT JOIN LATERAL (
      SELECT id, status, "suspendedFor", "createdAt", "personId" FROM account_bindings
      WHERE "accountId" = a.id ORDER BY "createdAt" DESC, id DESC LIMIT 1) b ON true
    LEFT JOIN people p ON p.id = b."personId"
    LEFT JOIN credential_status_entries e ON e."bindingId" = b.id AND e.purpose = 'revocation'
    WHERE a.id = ANY(${accountIds}::uuid[])`;
  for (const r of rows) out.set(r.accountId, { name: r.name, did: r.did, desired: desiredOf(r) });
  return out;
}

function desiredOf(r: Row): DesiredAttestation | null {
  if (!r.enabled || r.orgNumber === null || !r.status || !r.boundAt || r.erasedAt) return null;
  return {
    account: r.name,
    org: Number(r.orgNumber),
    level: LEVEL_BOUND,
    // 1 when the person's country is known; higher tiers are left to organizations' own risk tiers.
    countryTier: r.country ? 1 : 0,
    country: r.publishCountry && r.country ? r.country.toUpperCase() : "",
    expires: new Date(Math.floor((r.boundAt.getTime() + (r.validDays ?? 365) * DAY_MS) / 1000) * 1000),
    person: r.pairwiseId ?? "",
    statusIndex: r.statusIndex ?? 0,
    status: r.status,
    suspendReason: r.suspendedFor?.includes("key_changed") && !r.suspendedFor.includes("sanctions_flag") ? 3 : 2,
  };
}

export type Step = "issue" | "suspend" | "reinstate" | "revoke" | "remove";

const sameFields = (d: DesiredAttestation, c: AttestationRow) =>
  d.org === c.org &&
  d.level === c.level &&
  d.countryTier === c.countryTier &&
  d.country === c.country &&
  Math.floor(d.expires.getTime() / 1000) === Math.floor(c.expires.getTime() / 1000) &&
  d.person === c.person &&
  d.statusIndex === c.statusIndex;

/**
 * The actions that take the table from `current` to `desired`, in order. An attestation whose
 * expiry has passed is left to the contract's expiry sweep (an `issue` with a past expiry is
 * refused, and `require` already refuses the row).
 */
export function plan(desired: DesiredAttestation | null, current: AttestationRow | null, now: Date): Step[] {
  if (!desired) return current ? ["remove"] : [];
  if (desired.expires.getTime() <= now.getTime()) return [];
  const reissue = !current || !sameFields(desired, current) || (current.status === "revoked" && desired.status !== "revoked");
  const from = reissue ? "active" : current.status;
  const steps: Step[] = reissue ? ["issue"] : [];
  if (desired.status === from) return steps;
  if (desired.status === "revoked") return [...steps, "revoke"];
  if (desired.status === "suspended") return [...steps, "suspend"];
  return [...steps, "reinstate"];
}
