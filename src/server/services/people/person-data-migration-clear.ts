import { newAccountKey, sealContact } from "../../crypto/account-box";
import { isPersonSealed, openKey, personKey, sealedPersonId, sealWithKey } from "../../crypto/person-box";
import { providerReferenceHash } from "../../crypto/provider-reference";
import { clientIpHash, DEVICE_HASH_PREFIX, keyedDeviceHash, maskedClientIp } from "../../crypto/risk-hash";
import { seal as sealWithServiceKey } from "../../crypto/secret-box";
import { type Db, Prisma } from "../../db/client";
import { contactHash, verifiedPhoneHash } from "../../platform/contact-address";

/**
 * The second half of the person data migration (person-data-migration.ts): personal values that
 * were written in clear before they were sealed under the person's data key, sealed now
 * (docs/data-protection.md, "Crypto-shredding"). What compliance officers wrote on the cases of a
 * person (services/aml/case-text.ts: a case opened by hand's reason, the clearing and confirming
 * reasons, the approver's notes, comments, and the reasons and notes of the timeline events that
 * record them), the client address, provider reference (with its keyed hash,
 * crypto/provider-reference.ts) and hosted link of their KYC sessions, and the person's verified
 * phone (with its keyed hash, platform/contact-address.ts) and provider reference. Cases naming no person keep their
 * texts in clear; people already erased had theirs blanked by the erasure.
 *
 * And accounts' contacts (email, phone), sealed under the account's own data key (made here when
 * the account has none) with their keyed hashes, and the addresses of an organization's one-time
 * codes and proof tokens, sealed with BI_ENCRYPTION_KEY with their keyed hashes
 * (crypto/account-box.ts, services/contacts/otp.ts). A public signup's codes stay in clear.
 *
 * And what risk assessments count by (crypto/risk-hash.ts), which needs BI_HASH_KEY and no data
 * key (a risk event is not always about a person): a risk event's client address written in clear
 * becomes its keyed hash and its network, and a device fingerprint's plain SHA-256 (on risk events
 * and accounts) becomes its keyed form, "k1:" and the keyed hash of that SHA-256.
 *
 * The same design as the re-sealing of legacy values: each row is rewritten by a compare-and-set on
 * the values read (a newer write in between is never overwritten; the row is left for the next
 * pass), a value already sealed for the person is never touched again, and the rows are walked in
 * id order from a cursor, so a pass stopped anywhere continues where it stopped. `updatedAt`
 * columns are left as they are: the retention run reads a KYC session's as the person's activity.
 */

/** How services/aml/cases.ts begins the reason of a case opened by hand (the clearing reason follows): free text. */
const OPENED_BY_HAND = "Opened by hand to clear: ";
/** The timeline events whose `reason` and `notes` an officer wrote (services/aml/cases.ts, assignment.ts). */
const OFFICER_EVENT_KINDS = ["proposed", "cleared", "approved", "confirmed", "reassigned", "unassigned"];
/** What a text reads as once its person is erased (services/aml/case-text.ts). */
const ERASED_TEXT = "[erased]";

export type ClearRemaining = {
  cases: number;
  comments: number;
  events: number;
  sessions: number;
  people: number;
  accounts: number;
  codes: number;
  proofs: number;
  risk: number;
  devices: number;
};
export type ClearCursor = { [K in keyof ClearRemaining]: string | null };

type Row = { id: string; orgId: string; personId: string };
type CaseRow = Row & { reason: string; proposeReason: string | null; approveNotes: string | null; confirmReason: string | null };
type CommentRow = Row & { body: string };
type EventRow = Row & { data: Record<string, unknown> };
type SessionRow = Row & { provider: string; clientIp: string | null; providerSessionId: string | null; verificationUrl: string };
type PersonRow = Row & { verifiedPhone: string | null; providerApplicantId: string | null };
type AccountRow = { id: string; orgId: string; email: string | null; phone: string | null; dataKeySealed: string | null };
type CodeRow = { id: string; orgId: string; channel: "email" | "phone"; address: string };
type RiskRow = { id: string; orgId: string; clientIp: string | null; deviceFingerprintHash: string | null };
type DeviceRow = { id: string; orgId: string; deviceFingerprintHash: string };

/** Seals one text for the row's person; null once they are erased. */
type Seal = (text: string) => string | null;

type Source<R extends Row> = {
  /** Up to `batch` rows still holding clear text, after `after` in id order. */
  pending: (db: Db, after: string | null, batch: number) => Promise<R[]>;
  /** Rewrites the row if it still holds what was read; whether it changed it. */
  reseal: (db: Db, row: R, seal: Seal) => Promise<boolean>;
};

const sealedFor = (value: string, personId: string) => isPersonSealed(value) && sealedPersonId(value) === personId;
const sealText = (v: string | null, personId: string, seal: Seal) => (v === null || sealedFor(v, personId) ? v : (seal(v) ?? ERASED_TEXT));

/** Not sealed for the person of the row (`personId` the SQL expression naming them). */
const notSealed = (column: Prisma.Sql, personId: Prisma.Sql) => Prisma.sql`${column} NOT LIKE 'p1.' || ${personId}::text || '.%'`;
/** A contact not sealed for the account of the row (`x`). */
const notAccountSealed = (column: Prisma.Sql) => Prisma.sql`(${column} IS NOT NULL AND ${column} NOT LIKE 'a1.' || x.id::text || '.%')`;
/** A code's address not sealed with BI_ENCRYPTION_KEY (an email has an "@", a sealed value none). */
const codeInClear = Prisma.sql`x."orgId" IS NOT NULL AND (x.address NOT LIKE 'v1.%' OR x.address LIKE '%@%')`;
/** A device hash in its plain form (without the keyed form's prefix). */
const plainDevice = Prisma.sql`(x."deviceFingerprintHash" IS NOT NULL AND x."deviceFingerprintHash" NOT LIKE ${`${DEVICE_HASH_PREFIX}%`})`;
const caseP = Prisma.sql`c."personId"`;
const ownP = Prisma.sql`x."personId"`;

/** The rows of each kind still holding clear text about a person not erased (FROM and WHERE, `x` the row). */
const CLEAR = {
  cases: Prisma.sql`FROM aml_cases x JOIN people p ON p.id = x."personId"
    WHERE p."erasedAt" IS NULL
      AND (x.reason LIKE ${`${OPENED_BY_HAND}%`} OR ${notSealed(Prisma.sql`x."proposeReason"`, ownP)}
        OR ${notSealed(Prisma.sql`x."approveNotes"`, ownP)} OR ${notSealed(Prisma.sql`x."confirmReason"`, ownP)})`,
  comments: Prisma.sql`FROM aml_case_comments x JOIN aml_cases c ON c.id = x."caseId" JOIN people p ON p.id = c."personId"
    WHERE p."erasedAt" IS NULL AND ${notSealed(Prisma.sql`x.body`, caseP)}`,
  events: Prisma.sql`FROM aml_case_events x JOIN aml_cases c ON c.id = x."caseId" JOIN people p ON p.id = c."personId"
    WHERE p."erasedAt" IS NULL AND x.kind = ANY(${OFFICER_EVENT_KINDS}::text[])
      AND ((jsonb_typeof(x.data->'reason') = 'string' AND ${notSealed(Prisma.sql`x.data->>'reason'`, caseP)})
        OR (jsonb_typeof(x.data->'notes') = 'string' AND ${notSealed(Prisma.sql`x.data->>'notes'`, caseP)}))`,
  sessions: Prisma.sql`FROM kyc_sessions x JOIN people p ON p.id = x."personId"
    WHERE p."erasedAt" IS NULL
      AND (${notSealed(Prisma.sql`x."clientIp"`, ownP)} OR ${notSealed(Prisma.sql`x."providerSessionId"`, ownP)}
        OR (x."verificationUrl" <> '' AND ${notSealed(Prisma.sql`x."verificationUrl"`, ownP)}))`,
  people: Prisma.sql`FROM people x JOIN people p ON p.id = x.id
    WHERE p."erasedAt" IS NULL
      AND (${notSealed(Prisma.sql`x."verifiedPhone"`, Prisma.sql`x.id`)} OR ${notSealed(Prisma.sql`x."providerApplicantId"`, Prisma.sql`x.id`)})`,
  accounts: Prisma.sql`FROM accounts x WHERE (${notAccountSealed(Prisma.sql`x.email`)} OR ${notAccountSealed(Prisma.sql`x.phone`)})`,
  codes: Prisma.sql`FROM otp_challenges x WHERE ${codeInClear}`,
  proofs: Prisma.sql`FROM proof_tokens x WHERE ${codeInClear}`,
  // A masked address (its network) always holds a "/", an address never does.
  risk: Prisma.sql`FROM risk_events x WHERE ((x."clientIp" IS NOT NULL AND x."clientIp" NOT LIKE '%/%') OR ${plainDevice})`,
  devices: Prisma.sql`FROM accounts x WHERE ${plainDevice}`,
} satisfies Record<keyof ClearRemaining, Prisma.Sql>;

/** Rows of one kind after `after` in id order, with their person and `columns` of the row (`x`). */
const pendingRows = <R>(db: Db, kind: keyof ClearRemaining, columns: Prisma.Sql, after: string | null, batch: number) =>
  db.$queryRaw<R[]>`SELECT x.id::text AS id, p."orgId"::text AS "orgId", p.id::text AS "personId", ${columns} ${CLEAR[kind]}
    AND (${after}::uuid IS NULL OR x.id > ${after}::uuid) ORDER BY x.id LIMIT ${batch}`;

const cases: Source<CaseRow> = {
  pending: (db, after, batch) =>
    pendingRows(db, "cases", Prisma.sql`x.reason, x."proposeReason", x."approveNotes", x."confirmReason"`, after, batch),
  reseal: async (db, row, seal) => {
    const reason = row.reason.startsWith(OPENED_BY_HAND) ? (seal(row.reason) ?? ERASED_TEXT) : row.reason;
    const [proposeReason, approveNotes, confirmReason] = [row.proposeReason, row.approveNotes, row.confirmReason].map((v) =>
      sealText(v, row.personId, seal),
    );
    const changed = await db.$executeRaw`
      UPDATE aml_cases SET reason = ${reason}, "proposeReason" = ${proposeReason}::text,
        "approveNotes" = ${approveNotes}::text, "confirmReason" = ${confirmReason}::text
      WHERE id = ${row.id}::uuid AND reason = ${row.reason}
        AND "proposeReason" IS NOT DISTINCT FROM ${row.proposeReason}::text
        AND "approveNotes" IS NOT DISTINCT FROM ${row.approveNotes}::text
        AND "confirmReason" IS NOT DISTINCT FROM ${row.confirmReason}::text`;
    return changed > 0;
  },
};

const comments: Source<CommentRow> = {
  pending: (db, after, batch) => pendingRows(db, "comments", Prisma.sql`x.body`, after, batch),
  reseal: async (db, row, seal) =>
    (await db.$executeRaw`
      UPDATE aml_case_comments SET body = ${sealText(row.body, row.personId, seal)}
      WHERE id = ${row.id}::uuid AND body = ${row.body}`) > 0,
};

const events: Source<EventRow> = {
  pending: (db, after, batch) => pendingRows(db, "events", Prisma.sql`x.data`, after, batch),
  reseal: async (db, row, seal) => {
    const data = { ...row.data };
    for (const k of ["reason", "notes"]) {
      const v = data[k];
      if (typeof v === "string") data[k] = sealText(v, row.personId, seal);
    }
    const changed = await db.$executeRaw`
      UPDATE aml_case_events SET data = ${JSON.stringify(data)}::jsonb
      WHERE id = ${row.id}::uuid AND data = ${JSON.stringify(row.data)}::jsonb`;
    return changed > 0;
  },
};

/**
 * A session's client address, provider reference and hosted link, each sealed unless it already
 * is, the reference with its keyed hash (how callbacks find it). An erased person keeps none of
 * them (no address, no reference, an empty link, as the erasure leaves them).
 */
const sessions: Source<SessionRow> = {
  pending: (db, after, batch) =>
    pendingRows(db, "sessions", Prisma.sql`x.provider, x."clientIp", x."providerSessionId", x."verificationUrl"`, after, batch),
  reseal: async (db, row, seal) => {
    const sealed = (v: string | null) => (!v || sealedFor(v, row.personId) ? v : seal(v));
    const reference = row.providerSessionId && !sealedFor(row.providerSessionId, row.personId) ? row.providerSessionId : null;
    const providerSessionId = sealed(row.providerSessionId);
    const hash = reference && providerSessionId ? providerReferenceHash(row.provider, reference) : null;
    const changed = await db.$executeRaw`
      UPDATE kyc_sessions SET "clientIp" = ${sealed(row.clientIp)}::text, "providerSessionId" = ${providerSessionId}::text,
        "verificationUrl" = ${sealed(row.verificationUrl) ?? ""}
        ${reference ? Prisma.sql`, "providerSessionIdHash" = ${hash}::text` : Prisma.empty}
      WHERE id = ${row.id}::uuid AND "clientIp" IS NOT DISTINCT FROM ${row.clientIp}::text
        AND "providerSessionId" IS NOT DISTINCT FROM ${row.providerSessionId}::text AND "verificationUrl" = ${row.verificationUrl}`;
    return changed > 0;
  },
};

const people: Source<PersonRow> = {
  pending: (db, after, batch) => pendingRows(db, "people", Prisma.sql`x."verifiedPhone", x."providerApplicantId"`, after, batch),
  reseal: async (db, row, seal) => {
    const phone = row.verifiedPhone && !sealedFor(row.verifiedPhone, row.personId) ? row.verifiedPhone : null;
    const verifiedPhone = phone ? seal(phone) : row.verifiedPhone;
    const providerApplicantId = sealText(row.providerApplicantId, row.personId, seal);
    const changed = await db.$executeRaw`
      UPDATE people SET "verifiedPhone" = ${verifiedPhone}::text, "providerApplicantId" = ${providerApplicantId}::text
        ${phone ? Prisma.sql`, "verifiedPhoneHash" = ${verifiedPhoneHash(row.orgId, phone)}` : Prisma.empty}
      WHERE id = ${row.id}::uuid AND "verifiedPhone" IS NOT DISTINCT FROM ${row.verifiedPhone}::text
        AND "providerApplicantId" IS NOT DISTINCT FROM ${row.providerApplicantId}::text`;
    return changed > 0;
  },
};

/** Rows of a kind that is sealed under no person's key, after `after` in id order, with `columns` of the row (`x`). */
const ownRows = <R>(db: Db, kind: keyof ClearRemaining, columns: Prisma.Sql, after: string | null, batch: number) =>
  db.$queryRaw<R[]>`SELECT x.id::text AS id, x."orgId"::text AS "orgId", ${columns} ${CLEAR[kind]}
    AND (${after}::uuid IS NULL OR x.id > ${after}::uuid) ORDER BY x.id LIMIT ${batch}`;

/** A kind sealed under no person's key: `reseal` answers "unreadable" for a row whose key cannot be opened. */
type OwnSource<R extends { id: string }> = {
  pending: (db: Db, after: string | null, batch: number) => Promise<R[]>;
  reseal: (db: Db, row: R) => Promise<boolean | "unreadable">;
};

/**
 * An account's clear contacts, sealed under its data key (made now when it has none: the same
 * compare-and-set writes it, so two passes never seal under two keys) with their keyed hashes.
 */
const accounts: OwnSource<AccountRow> = {
  pending: (db, after, batch) => ownRows(db, "accounts", Prisma.sql`x.email, x.phone, x."dataKeySealed"`, after, batch),
  reseal: async (db, row) => {
    let key: { key: Buffer; sealed: string };
    try {
      key = row.dataKeySealed ? { key: openKey(row.dataKeySealed), sealed: row.dataKeySealed } : newAccountKey();
    } catch {
      return "unreadable";
    }
    const clear = (v: string | null) => (v !== null && !v.startsWith(`a1.${row.id}.`) ? v : null);
    const [email, phone] = [clear(row.email), clear(row.phone)];
    const changed = await db.$executeRaw`
      UPDATE accounts SET email = ${email ? sealContact(key.key, row.id, email) : row.email}::text,
        phone = ${phone ? sealContact(key.key, row.id, phone) : row.phone}::text, "dataKeySealed" = ${key.sealed}
        ${email ? Prisma.sql`, "emailHash" = ${contactHash(row.orgId, "email", email)}` : Prisma.empty}
        ${phone ? Prisma.sql`, "phoneHash" = ${contactHash(row.orgId, "phone", phone)}` : Prisma.empty}
      WHERE id = ${row.id}::uuid AND email IS NOT DISTINCT FROM ${row.email}::text AND phone IS NOT DISTINCT FROM ${row.phone}::text
        AND "dataKeySealed" IS NOT DISTINCT FROM ${row.dataKeySealed}::text`;
    return changed > 0;
  },
};

/** The address of an organization's code or proof token, sealed with BI_ENCRYPTION_KEY, with its keyed hash. */
const codeSource = (table: "otp_challenges" | "proof_tokens", kind: "codes" | "proofs"): OwnSource<CodeRow> => ({
  pending: (db, after, batch) => ownRows(db, kind, Prisma.sql`x.channel::text AS channel, x.address`, after, batch),
  reseal: async (db, row) =>
    (await db.$executeRaw`
      UPDATE ${Prisma.raw(table)} SET address = ${sealWithServiceKey(row.address)},
        "addressHash" = ${contactHash(row.orgId, row.channel, row.address)}
      WHERE id = ${row.id}::uuid AND address = ${row.address}`) > 0,
});

/** A device hash in its keyed form (the plain SHA-256 written before, keyed now). */
const keyedDevice = (v: string | null) => (v === null || v.startsWith(DEVICE_HASH_PREFIX) ? v : keyedDeviceHash(v));

/** A risk event's clear client address as its keyed hash and network, its plain device hash keyed. */
const risk: OwnSource<RiskRow> = {
  pending: (db, after, batch) => ownRows(db, "risk", Prisma.sql`x."clientIp", x."deviceFingerprintHash"`, after, batch),
  reseal: async (db, row) => {
    const ip = row.clientIp !== null && !row.clientIp.includes("/") ? row.clientIp : null;
    const changed = await db.$executeRaw`
      UPDATE risk_events SET "deviceFingerprintHash" = ${keyedDevice(row.deviceFingerprintHash)}::text
        ${ip ? Prisma.sql`, "clientIpHash" = ${clientIpHash(row.orgId, ip)}, "clientIp" = ${maskedClientIp(ip)}::text` : Prisma.empty}
      WHERE id = ${row.id}::uuid AND "clientIp" IS NOT DISTINCT FROM ${row.clientIp}::text
        AND "deviceFingerprintHash" IS NOT DISTINCT FROM ${row.deviceFingerprintHash}::text`;
    return changed > 0;
  },
};

/** An account's plain device hash, keyed. */
const devices: OwnSource<DeviceRow> = {
  pending: (db, after, batch) => ownRows(db, "devices", Prisma.sql`x."deviceFingerprintHash"`, after, batch),
  reseal: async (db, row) =>
    (await db.$executeRaw`
      UPDATE accounts SET "deviceFingerprintHash" = ${keyedDevice(row.deviceFingerprintHash)}
      WHERE id = ${row.id}::uuid AND "deviceFingerprintHash" = ${row.deviceFingerprintHash}`) > 0,
};

export const CLEAR_START: ClearCursor = {
  cases: null,
  comments: null,
  events: null,
  sessions: null,
  people: null,
  accounts: null,
  codes: null,
  proofs: null,
  risk: null,
  devices: null,
};

/** One kind's rows after `after`, each sealed in its own statement by the seal of its person (none: unreadable). */
async function walk<R extends Row>(
  db: Db,
  source: Source<R>,
  after: string | null,
  batch: number,
  sealOf: (row: Row) => Promise<Seal | undefined>,
) {
  const rows = await source.pending(db, after, batch);
  let resealed = 0;
  let unreadable = 0;
  for (const row of rows) {
    const seal = await sealOf(row);
    if (!seal) unreadable++;
    else if (await source.reseal(db, row, seal)) resealed++;
  }
  return { resealed, unreadable, full: rows.length >= batch, last: rows.at(-1)?.id ?? after };
}

/** One kind sealed under no person's key: its rows after `after`, each in its own statement. */
async function walkOwn<R extends { id: string }>(db: Db, source: OwnSource<R>, after: string | null, batch: number) {
  const rows = await source.pending(db, after, batch);
  let resealed = 0;
  let unreadable = 0;
  for (const row of rows) {
    const done = await source.reseal(db, row);
    if (done === "unreadable") unreadable++;
    else if (done) resealed++;
  }
  return { resealed, unreadable, full: rows.length >= batch, last: rows.at(-1)?.id ?? after };
}

/**
 * One batch of each kind after `after`: up to `batch` rows each. A person whose data key cannot be
 * opened (a retired BI_ENCRYPTION_KEY id) has their rows counted unreadable and walked past.
 * `next` is where each kind continues; `more` is false once every kind returned less than a batch.
 */
export async function sealClearBatch(db: Db, after: ClearCursor, batch: number) {
  // The person's key is read for each row, as every use of it is (never cached: an erasure meanwhile holds at once).
  const sealOf = async (row: Row): Promise<Seal | undefined> => {
    const key = await personKey(db, { id: row.personId, orgId: row.orgId }).catch(() => undefined);
    if (key === undefined) return undefined;
    return (text) => (key ? sealWithKey(key, row.personId, text) : null);
  };
  const steps = {
    cases: await walk(db, cases, after.cases, batch, sealOf),
    comments: await walk(db, comments, after.comments, batch, sealOf),
    events: await walk(db, events, after.events, batch, sealOf),
    sessions: await walk(db, sessions, after.sessions, batch, sealOf),
    people: await walk(db, people, after.people, batch, sealOf),
    accounts: await walkOwn(db, accounts, after.accounts, batch),
    codes: await walkOwn(db, codeSource("otp_challenges", "codes"), after.codes, batch),
    proofs: await walkOwn(db, codeSource("proof_tokens", "proofs"), after.proofs, batch),
    risk: await walkOwn(db, risk, after.risk, batch),
    devices: await walkOwn(db, devices, after.devices, batch),
  };
  const all = Object.values(steps);
  return {
    resealed: all.reduce((n, s) => n + s.resealed, 0),
    unreadable: all.reduce((n, s) => n + s.unreadable, 0),
    next: {
      cases: steps.cases.last,
      comments: steps.comments.last,
      events: steps.events.last,
      sessions: steps.sessions.last,
      people: steps.people.last,
      accounts: steps.accounts.last,
      codes: steps.codes.last,
      proofs: steps.proofs.last,
      risk: steps.risk.last,
      devices: steps.devices.last,
    },
    more: all.some((s) => s.full),
  };
}

/** How many rows of each kind still hold clear text about a person not erased (or a contact, a code's address, a risk event's address or a plain device hash). */
export async function clearRemaining(db: Db): Promise<ClearRemaining> {
  const [r] = await db.$queryRaw<ClearRemaining[]>`
    SELECT (SELECT count(*)::int ${CLEAR.cases}) AS cases, (SELECT count(*)::int ${CLEAR.comments}) AS comments,
           (SELECT count(*)::int ${CLEAR.events}) AS events, (SELECT count(*)::int ${CLEAR.sessions}) AS sessions,
           (SELECT count(*)::int ${CLEAR.people}) AS people, (SELECT count(*)::int ${CLEAR.accounts}) AS accounts,
           (SELECT count(*)::int ${CLEAR.codes}) AS codes, (SELECT count(*)::int ${CLEAR.proofs}) AS proofs,
           (SELECT count(*)::int ${CLEAR.risk}) AS risk, (SELECT count(*)::int ${CLEAR.devices}) AS devices`;
  return r!;
}
