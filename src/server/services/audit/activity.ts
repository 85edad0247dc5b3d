import type { AuditEntry } from "@/generated/prisma/client.ts";
import { personIdOfDid, personShortLabel } from "@/lib/person-label";
import { atLeast } from "@/lib/roles";
import type { Actor, ServiceContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { readAll } from "../../db/tx";
import { isUuid } from "../../platform/ids";
import { auditEntryView } from "./chain";

// Audit entries in words: who acted (an API key's name, a member's email) and what about (a person's
// short label, an account's name), read with one query per kind of name for a whole page of entries.

const SYSTEM_ACTORS: Record<string, string> = {
  provisioning: "Provisioning",
  "export-runner": "The export runner",
  screening: "Screening",
  billing: "Billing",
  bind_page: "The account's wallet, on the hosted bind page",
  compliance: "Compliance",
  attestations: "The attestation publisher",
  test: "The system",
};

type Names = { keys: Map<string, { name: string; prefix: string }>; webhooks: Map<string, string> };

/** "API key 'backend' (bi_test_ab12cd34)", an email, or the system part that acted. */
function actorName(actor: string, names: Names): string {
  const [kind, ...rest] = actor.split(":");
  const value = rest.join(":");
  if (kind === "api_key") {
    const key = names.keys.get(value);
    return key ? `API key '${key.name}' (${key.prefix})` : "A deleted API key";
  }
  if (kind === "member") return value;
  if (kind === "system") {
    const [part, provider] = value.split(":");
    if (part === "kyc-provider" || part === "kyc-refresh") return `The KYC provider (${provider ?? "unknown"})`;
    return SYSTEM_ACTORS[part ?? ""] ?? `The system (${value})`;
  }
  return actor;
}

/** The thing an entry is about, by name: a person's label, an account's name, a key's name. */
function subjectName(e: AuditEntry, names: Names): string | null {
  if (!e.subject) return null;
  switch (e.subjectType) {
    case "person":
      return personIdOfDid(e.subject) ? personShortLabel(e.subject) : "an applicant";
    case "account":
      return e.subject.split(":").pop() ?? e.subject;
    case "api_key": {
      const key = names.keys.get(e.subject);
      return key ? `'${key.name}'` : "a deleted key";
    }
    case "member":
      return e.subject;
    case "webhook":
      return names.webhooks.get(e.subject) ?? "a webhook";
    case "organization":
      return "the organization";
    default:
      return null;
  }
}

const personIn = (data: Record<string, unknown>) =>
  typeof data.personDid === "string" && personIdOfDid(data.personDid) ? personShortLabel(data.personDid) : null;

/** "turned on-chain attestations on", "changed the on-chain attestation settings (validDays 365 to 180)". */
function attestationSettingsWords(data: Record<string, unknown>): string {
  const record = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const before = record(data.before);
  const after = record(data.after);
  const others = Object.keys(after).filter((k) => k !== "enabled");
  const changes = others.map((k) => `${k} ${String(before[k])} to ${String(after[k])}`).join(", ");
  const turned = typeof after.enabled === "boolean" ? `turned on-chain attestations ${after.enabled ? "on" : "off"}` : null;
  if (turned) return changes ? `${turned} (${changes})` : turned;
  return `changed the on-chain attestation settings${changes ? ` (${changes})` : ""}`;
}

/** One sentence per entry: "alice@acme.test cleared the AML case for Person 7F3A-21C9". */
function summary(e: AuditEntry, actor: string, subject: string | null): string {
  const data = (e.data ?? {}) as Record<string, unknown>;
  const s = subject ?? "";
  const person = personIn(data);
  const sentences: Record<string, string> = {
    "kyc.started": `${actor} started KYC for ${s}`,
    "kyc.approved": `${actor} approved KYC for ${s}`,
    "kyc.rejected": `${actor} rejected KYC for ${s}`,
    "kyc.retry": `${actor} asked ${s} to retry KYC`,
    "kyc.in_review": `${actor} put KYC for ${s} in review`,
    "kyc.pending": `${actor} reported KYC for ${s} pending`,
    "account.created": `${actor} created account ${s}`,
    "account.suspended": `${actor} suspended account ${s}`,
    "account.unlocked": `${actor} unlocked account ${s}`,
    "account.email_changed": `${actor} changed the email of account ${s}`,
    "account.phone_changed": `${actor} changed the phone of account ${s}`,
    "identity.bound": `${actor} bound account ${s}${person ? ` to ${person}` : ""}`,
    "identity.unbound": `${actor} revoked the binding of account ${s}`,
    "identity.binding_suspended": `${actor} suspended the binding of account ${s}${typeof data.reason === "string" ? ` (${data.reason.replace(/_/g, " ")})` : ""}`,
    "identity.binding_reinstated": `${actor} reinstated the binding of account ${s}`,
    "identity.binding_suspension_lifted": `${actor} lifted one suspension of the binding of account ${s}`,
    "bind.session_created": `${actor} sent a bind page link for account ${s}${person ? ` and ${person}` : ""}`,
    "bind.refused": `${actor} was refused binding account ${s}${typeof data.reason === "string" ? ` (${data.reason.replace(/_/g, " ")})` : ""}`,
    "aml.case_opened": `${actor} opened an AML case for ${s}`,
    "aml.clear_proposed": `${actor} proposed clearing the AML case for ${s}`,
    "aml.cleared": `${actor} cleared the AML case for ${s}`,
    "aml.confirmed": `${actor} confirmed the AML case for ${s}`,
    "aml.sanctions_hit": `${actor} recorded a screening match for ${s}`,
    "kyc.duplicate_person": `${actor} found that ${s} ${data.match === "document" ? "has the same identity document as" : "has the same name and birth date as"} another person${data.createRefused === true ? " (create token refused)" : ""}`,
    "person.erased": `${actor} erased ${s}`,
    "person.erasure_scheduled": `${actor} asked to erase ${s} (held until the hold ends)`,
    "person.erasure_withdrawn": `${actor} withdrew the erasure of ${s}`,
    "person.exported": `${actor} exported what is held about ${s}`,
    "claim.recorded": `${actor} recorded a claim of ${s}`,
    "aml.screened": `${actor} screened ${s || "an applicant"}`,
    "aml.account_screened": `${actor} screened a chain account`,
    "aml.denylist_added": `${actor} added an applicant to the denylist`,
    "aml.denylist_removed": `${actor} removed an applicant from the denylist`,
    "api_key.created": `${actor} created API key ${s}`,
    "api_key.revoked": `${actor} revoked API key ${s}`,
    "member.added": `${actor} added member ${s}`,
    "member.updated": `${actor} changed member ${s}`,
    "member.deactivated": `${actor} deactivated member ${s}`,
    "member.invited": `${actor} invited member ${s}`,
    "member.invitation_accepted": `${actor} accepted the invitation and set up their own sign-in`,
    "member.sessions_ended": `${actor} ended the console sessions of ${s}`,
    "console.session_revoked": `${actor} ended a console session`,
    "console.signed_in": `${actor} signed in to the console`,
    "console.signed_out": `${actor} signed out of the console`,
    "console_password.changed": `${actor} changed the console password`,
    "organization.created": `${actor} created the organization`,
    "policy.updated": `${actor} changed the policy`,
    "ip_allowlist.updated": `${actor} changed the IP allowlist`,
    "country_policy.updated": `${actor} changed the country policy`,
    "signing.enabled": `${actor} turned request signing on`,
    "signing.disabled": `${actor} turned request signing off`,
    "dpa.accepted": `${actor} accepted the DPA`,
    "webhook.created": `${actor} registered webhook ${s}`,
    "webhook.secret_rotated": `${actor} rotated the signing secret of webhook ${s}`,
    "screening.list_imported": `${actor} imported a version of the organization's own screening list`,
    "webhook.deactivated": `${actor} deactivated webhook ${s}`,
    "webhook.delivery_replayed": `${actor} replayed a webhook delivery`,
    "compliance.export_requested": `${actor} requested an audit export`,
    "compliance.export_completed": `${actor} completed an audit export`,
    "compliance.export_failed": `${actor} could not complete an audit export`,
    "kyb.started": `${actor} started KYB for the organization`,
    "attestation.published": `${actor} published the attestation of account ${s}${typeof data.status === "string" ? ` (${data.status})` : ""}`,
    "attestations.settings_changed": `${actor} ${attestationSettingsWords(data)}`,
    "wallet.offer_created": `${actor} offered a wallet credential to ${s}`,
    "wallet.credential_issued": `${actor} issued a wallet credential to ${s}`,
    "wallet.presentation_requested": `${actor} asked a person's wallet for ${claimWords(data)}`,
    "wallet.presentation_verified": `${actor} verified a wallet presentation of ${claimWords(data)}${data.reuse === true ? ", reused from another organization with the person's consent" : ""}`,
    "wallet.presentation_refused": `${actor} refused a wallet presentation${typeof data.refusal === "string" ? ` (${data.refusal.replace(/_/g, " ")})` : ""}`,
    "wallet.presentation_declined": `The person declined to share ${claimWords(data)} from their wallet`,
    "wallet.reuse_consented": `${s} consented to share ${claimWords(data)} with ${typeof data.recipientName === "string" ? data.recipientName : "another organization"}`,
  };
  return sentences[e.action] ?? `${actor}: ${e.action.replace(/[._]/g, " ")}${subject ? ` (${subject})` : ""}`;
}

/** The claim names of a wallet entry, in a list ("kyc level and age over 18"). */
function claimWords(data: Record<string, unknown>): string {
  const claims = Array.isArray(data.claims)
    ? data.claims.filter((c): c is string => typeof c === "string").map((c) => c.replace(/_/g, " "))
    : [];
  if (claims.length === 0) return "claims";
  return claims.length === 1 ? claims[0]! : `${claims.slice(0, -1).join(", ")} and ${claims.at(-1)}`;
}

/** Reads the names a page of entries mentions: one query for API keys, one for webhooks. */
async function readNames(db: DbOrTx, orgId: string, entries: AuditEntry[]): Promise<Names> {
  const keyIds = new Set<string>();
  const webhookIds = new Set<string>();
  for (const e of entries) {
    if (e.actor.startsWith("api_key:")) keyIds.add(e.actor.slice("api_key:".length));
    if (e.subjectType === "api_key" && e.subject) keyIds.add(e.subject);
    if (e.subjectType === "webhook" && e.subject) webhookIds.add(e.subject);
  }
  const ids = (s: Set<string>) => [...s].filter(isUuid);
  const [keys, webhooks] = await readAll(db, [
    () =>
      keyIds.size ? db.apiKey.findMany({ where: { orgId, id: { in: ids(keyIds) } }, select: { id: true, name: true, prefix: true } }) : [],
    () => (webhookIds.size ? db.webhook.findMany({ where: { orgId, id: { in: ids(webhookIds) } }, select: { id: true, url: true } }) : []),
  ]);
  return {
    keys: new Map(keys.map((k) => [k.id, { name: k.name, prefix: k.prefix }])),
    webhooks: new Map(webhooks.map((w) => [w.id, safeHost(w.url)])),
  };
}

/** Recorded actor ids (`api_key:<id>`, `member:<email>`, `system:…`) by name, with one query for the keys. */
export async function actorNames(db: DbOrTx, orgId: string, actors: (string | null)[]): Promise<Map<string, string>> {
  const known = [...new Set(actors.filter((a): a is string => !!a))];
  const keyIds = known.filter((a) => a.startsWith("api_key:")).map((a) => a.slice("api_key:".length));
  const keys = keyIds.length
    ? await db.apiKey.findMany({ where: { orgId, id: { in: keyIds.filter(isUuid) } }, select: { id: true, name: true, prefix: true } })
    : [];
  const names: Names = { keys: new Map(keys.map((k) => [k.id, { name: k.name, prefix: k.prefix }])), webhooks: new Map() };
  return new Map(known.map((a) => [a, actorName(a, names)]));
}

const safeHost = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return "a webhook";
  }
};

/**
 * Entries as the API shows them plus `actorName`, `subjectName` and `summary`: the existing fields
 * are unchanged, so readers of the hash-chained shape are unaffected.
 */
export async function describeAudit(db: DbOrTx, orgId: string, entries: AuditEntry[]) {
  const names = await readNames(db, orgId, entries);
  return entries.map((e) => {
    const actor = actorName(e.actor, names);
    const subject = subjectName(e, names);
    return { ...auditEntryView(e), actorName: actor, subjectName: subject, summary: summary(e, actor, subject) };
  });
}

/**
 * The newest entries (at most `limit`) that are about one of `subjects` or made by one of
 * `actors`, in words: the audit trail of a person, an account or an API key.
 */
/** AML work and screening, and duplicate-person findings (a review signal): for compliance officers and up (the AML queue's own bar). */
const AML_ACTIONS = /^(aml\.|screening\.|kyc\.duplicate_person$)/;
/** Entries whose `reason` can say why a binding or account was held: a sanctions flag, an AML hold. */
const REASONED = new Set(["identity.binding_suspended", "identity.binding_suspension_lifted", "identity.unbound", "bind.refused"]);

/**
 * Whether this reader may see AML detail: an API key or the system, or a console member from
 * compliance officer up. Below that, telling a viewer why a binding is held could tip off its
 * subject (docs/security.md), so AML entries are left out and reasons removed.
 */
export function mayReadAmlDetail(reader: Actor): boolean {
  return reader.type !== "member" || atLeast(reader.role, "compliance_officer");
}

function withoutAmlDetail(rows: AuditEntry[]): AuditEntry[] {
  return rows
    .filter((r) => !AML_ACTIONS.test(r.action))
    .map((r) => {
      if (!REASONED.has(r.action) || typeof r.data !== "object" || r.data === null || Array.isArray(r.data)) return r;
      const { reason: _reason, suspendedFor: _for, ...rest } = r.data as Record<string, unknown>;
      // "Screening suspended…" would say why as plainly as the reason: the actor becomes compliance.
      return { ...r, actor: r.actor === "system:screening" ? "system:compliance" : r.actor, data: rest as AuditEntry["data"] };
    });
}

/**
 * The audit entries about some subjects or by some actors, newest first, in words. With `reader`,
 * what that reader may not see of AML work is left out (`mayReadAmlDetail`).
 */
export async function auditTrail(db: DbOrTx, orgId: string, of: { subjects?: string[]; actors?: string[] }, limit = 100, reader?: Actor) {
  const or = [
    ...(of.subjects?.length ? [{ subject: { in: of.subjects } }] : []),
    ...(of.actors?.length ? [{ actor: { in: of.actors } }] : []),
  ];
  if (!or.length) return [];
  const rows = await db.auditEntry.findMany({ where: { orgId, OR: or }, orderBy: { seq: "desc" }, take: limit });
  return describeAudit(db, orgId, reader ? readableBy(reader, rows) : rows);
}

/** The entries this reader may see: all of them, or without AML work below compliance officer (`mayReadAmlDetail`). */
export const readableBy = (reader: Actor, rows: AuditEntry[]): AuditEntry[] => (mayReadAmlDetail(reader) ? rows : withoutAmlDetail(rows));

/** Newest entries of the caller's organization first, in words; page on with `before` = the last seq seen. */
export async function listAudit(ctx: ServiceContext, query: { limit: number; before?: number }) {
  const entries = await ctx.db.auditEntry.findMany({
    where: { orgId: ctx.org.id, ...(query.before !== undefined ? { seq: { lt: query.before } } : {}) },
    orderBy: { seq: "desc" },
    take: query.limit,
  });
  const last = entries[entries.length - 1];
  return {
    entries: await describeAudit(ctx.db, ctx.org.id, entries),
    nextBefore: entries.length === query.limit && last && last.seq > 1 ? last.seq : null,
  };
}
