import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { ServiceContext } from "../../context";
import { clientIpHash, deviceHashes, maskedClientIp } from "../../crypto/risk-hash";
import { type Db, type DbOrTx, Prisma, type Tx } from "../../db/client";
import { utcTimestamp } from "../../db/sql";
import { isTransaction } from "../../db/tx";
import { logger } from "../../log";
import { normalizeIp } from "../../net/cidr";
import type { RiskAssessInput, RiskAssessment, RiskKind } from "./risk.schema";

// Anti-abuse risk: velocity per device, per client IP and per organization over recent windows,
// one device shared across several people or accounts, and disposable email domains from the
// maintained `disposable-email-domains` list. Every assessment is kept as a RiskEvent row, which
// is also what later velocity counts read, so refused attempts count too.

const require = createRequire(import.meta.url);
/**
 * The lists (about 120,000 domains), read on the first check rather than at import: parsing them
 * costs most of a second, which every process that loads the routes but never checks an address
 * (the worker, operator scripts) would pay.
 */
let disposable: { exact: Set<string>; wildcard: Set<string> } | undefined;
function disposableLists() {
  disposable ??= {
    exact: new Set<string>((require("disposable-email-domains") as string[]).map((d) => d.toLowerCase())),
    /** Domains whose every subdomain is disposable too. */
    wildcard: new Set<string>((require("disposable-email-domains/wildcard.json") as string[]).map((d) => d.toLowerCase())),
  };
  return disposable;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How far back risk events count towards "one device, several subjects". */
const SHARED_DEVICE_WINDOW = 30 * DAY;

/** Decision thresholds on the 0–100 score. */
export const RISK_REVIEW_AT = 40;
export const RISK_DENY_AT = 80;

/**
 * Weights: one strong signal (disposable email, a device used by 5+ subjects, a device
 * hammering) reaches review on its own; deny needs two. IP and organization velocity are weak
 * signals (a tenant's backend is one address), so alone they never deny.
 */
const RULES = {
  disposableEmail: 50,
  deviceVelocity: [
    { at: 10, weight: 50 },
    { at: 5, weight: 25 },
  ],
  sharedDevice: [
    { at: 5, weight: 60 },
    { at: 3, weight: 40 },
  ],
  ipVelocity: [
    { at: 100, weight: 30 },
    { at: 30, weight: 15 },
  ],
  orgPerMinute: { at: 60, weight: 20 },
  orgPerHour: { at: 1000, weight: 20 },
} as const;

export function isDisposableEmail(email: string): boolean {
  const domain = email
    .slice(email.lastIndexOf("@") + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "");
  if (!domain) return false;
  const { exact, wildcard } = disposableLists();
  if (exact.has(domain)) return true;
  const labels = domain.split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    if (wildcard.has(labels.slice(i).join("."))) return true;
  }
  return false;
}

const tier = (n: number, tiers: ReadonlyArray<{ at: number; weight: number }>) => tiers.find((t) => n >= t.at)?.weight ?? 0;

/**
 * The counts that grow with a tenant's whole traffic (its organization, and the address of its
 * backend) are read only up to the highest tier of their rule: the decision is the same, and a
 * busy organization's hour of events is not counted row by row on every request; those signals
 * then say "at least" this many. Per-device counts stay exact (they are small by nature).
 */
const CAP = { device1h: 10_000, device24h: 10_000, sharedDevice: 100, ip1h: 100, org1m: 60, org1h: 1000 } as const;

export type RiskCounts = {
  deviceEvents1h: number | null;
  deviceEvents24h: number | null;
  sharedDeviceSubjects: number | null;
  ipEvents1h: number;
  orgEvents1m: number;
  orgEvents1h: number;
};

/** One assessment in the making: what it counts by, and when. */
export type RiskPlan = {
  orgId: string;
  kind: RiskKind;
  input: RiskAssessInput;
  now: Date;
  /** The keyed hash the event is written with (crypto/risk-hash.ts). */
  deviceHash: string | null;
  /** The plain SHA-256 events and accounts written before hold for the same device (until the person data migration turns it into the keyed one). */
  legacyDeviceHash: string | null;
  ip: string;
  /** The keyed hash of the address in the organization, what the event keeps and counts by. */
  ipHash: string;
  ipSource: "input" | "caller";
  /** Where a busy organization's hour is read once its count reaches the cap (`noteBusyHour`); null inside a transaction. */
  db: Db | null;
};

/**
 * Per organization, until when its last hour is known to hold at least `CAP.org1h` assessments:
 * the time of its `CAP.org1h`-th newest plus an hour. Events are only ever added (none is deleted
 * while its organization exists), so until then the hour's count is at its cap without reading it.
 * For a busy organization that count read up to 1,000 rows in every bind confirm, free create and
 * KYC start; it is read once when the cap is first reached (`noteBusyHour`), beside the request.
 * An entry goes once its time has passed (at the organization's next assessment, or when another
 * organization's hour is noted), so the map holds only the organizations busy in the last hour.
 */
const orgHourFull = new Map<string, number>();
const orgHourReads = new Map<string, Promise<void>>();

/** The reads of busy hours in flight (tests wait for them). */
export const busyHourReads = () => Promise.all(orgHourReads.values()).then(() => undefined);
/** The organizations whose hour this process holds as full (tests). */
export const busyHourOrganizations = () => [...orgHourFull.keys()];

/** Forgets the hours over by `now`: the map holds the organizations busy within the last hour, not every one ever busy. */
function forgetPastHours(now: number): void {
  for (const [orgId, until] of orgHourFull) if (until <= now) orgHourFull.delete(orgId);
}

function noteBusyHour(plan: RiskPlan): void {
  const { orgId, now, db } = plan;
  if (!db || (orgHourFull.get(orgId) ?? 0) > now.getTime() || orgHourReads.has(orgId)) return;
  const read = db.$queryRaw<{ at: number | null }[]>`
      SELECT floor(extract(epoch FROM min("createdAt")) * 1000)::float8 AS at
      FROM (SELECT "createdAt" FROM risk_events WHERE "orgId" = ${orgId}::uuid AND "createdAt" >= ${utcTimestamp(new Date(now.getTime() - HOUR))}
            ORDER BY "createdAt" DESC LIMIT ${CAP.org1h}) w
      HAVING count(*) >= ${CAP.org1h}`
    .then(([row]) => {
      forgetPastHours(now.getTime());
      if (row?.at != null) orgHourFull.set(orgId, row.at + HOUR);
    })
    .catch((err: Error) => logger().warn({ err: { message: err.message } }, "could not read the organization's busy hour"))
    .finally(() => orgHourReads.delete(orgId));
  orgHourReads.set(orgId, read);
}

export function planRisk(ctx: ServiceContext, input: RiskAssessInput, kind: RiskKind): RiskPlan {
  const device = input.deviceFingerprint ? deviceHashes(input.deviceFingerprint) : null;
  const ip = (input.ipAddress && normalizeIp(input.ipAddress)) || normalizeIp(ctx.clientIp) || ctx.clientIp;
  return {
    orgId: ctx.org.id,
    kind,
    input,
    now: ctx.now(),
    deviceHash: device?.keyed ?? null,
    legacyDeviceHash: device?.plain ?? null,
    ip,
    ipHash: clientIpHash(ctx.org.id, ip),
    ipSource: input.ipAddress ? "input" : "caller",
    db: isTransaction(ctx.db) ? null : (ctx.db as Db),
  };
}

/**
 * The counts of an assessment as columns of one SELECT (named as RiskCounts), so a caller can read
 * them in the same round trip as its own reads. Subjects of a device are the accounts created with
 * it and the subjects of its earlier assessments (plus this one's).
 */
export function riskCountColumns(plan: RiskPlan): Prisma.Sql {
  const { orgId, deviceHash, now } = plan;
  const full = orgHourFull.get(orgId);
  if (full !== undefined && full <= now.getTime()) orgHourFull.delete(orgId);
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const capped = (where: Prisma.Sql, since: number, cap: number, newestFirst = false) =>
    Prisma.sql`(SELECT count(*) FROM (SELECT 1 FROM risk_events WHERE "orgId" = ${orgId}::uuid AND ${where} AND "createdAt" >= ${utcTimestamp(ago(since))}
                ${newestFirst ? Prisma.sql`ORDER BY "createdAt" DESC` : Prisma.empty} LIMIT ${cap}) c)::int`;
  const all = Prisma.sql`true`;
  // A device's rows are in either form, the keyed hash or the plain SHA-256 written before the
  // person data migration reaches them; an address's rows hold its keyed hash, or (hash NULL) it
  // in clear: one index on COALESCE of the two finds both (prisma/migrations/20261129000000_risk_events_address_index).
  // The organization's count of the last minute reads its newest events first, so the scan stops
  // at the cap: without the order, PostgreSQL may choose a bitmap scan, which reads every event of
  // the minute first (5,000 at a bench's rate). The hour's count keeps the bitmap scan: its cap of
  // 1,000 rows costs less read as a bitmap than fetched one by one in order (0.3 against 1.5 ms).
  const sameDevice = Prisma.sql`"deviceFingerprintHash" IN (${deviceHash}, ${plan.legacyDeviceHash})`;
  const device = deviceHash
    ? Prisma.sql`${capped(sameDevice, HOUR, CAP.device1h)} AS "deviceEvents1h",
        ${capped(sameDevice, DAY, CAP.device24h)} AS "deviceEvents24h",
        (SELECT count(*) FROM (SELECT s FROM (
           (SELECT did AS s FROM accounts WHERE "orgId" = ${orgId}::uuid AND ${sameDevice} LIMIT 100)
           UNION (SELECT DISTINCT "subjectRef" FROM risk_events WHERE "orgId" = ${orgId}::uuid AND ${sameDevice}
                  AND "subjectRef" IS NOT NULL AND "createdAt" >= ${utcTimestamp(ago(SHARED_DEVICE_WINDOW))} LIMIT 100)
           UNION (SELECT ${plan.input.subjectRef ?? null}::text WHERE ${plan.input.subjectRef ?? null}::text IS NOT NULL)) u LIMIT ${CAP.sharedDevice}) d)::int
          AS "sharedDeviceSubjects"`
    : Prisma.sql`NULL::int AS "deviceEvents1h", NULL::int AS "deviceEvents24h", NULL::int AS "sharedDeviceSubjects"`;
  return Prisma.sql`${device},
    ${capped(Prisma.sql`COALESCE("clientIpHash", "clientIp") IN (${plan.ipHash}, ${plan.ip})`, HOUR, CAP.ip1h)} AS "ipEvents1h",
    ${capped(all, MINUTE, CAP.org1m, true)} AS "orgEvents1m",
    ${orgHourFull.has(orgId) ? Prisma.sql`${CAP.org1h}::int` : capped(all, HOUR, CAP.org1h)} AS "orgEvents1h"`;
}

/**
 * Parallel assessments of one device queue up until the previous one's event is committed, so a
 * burst of parallel attempts from one device is counted exactly, which is what such a burst is
 * for. Needs the transaction the counts and the event are written in.
 */
export const lockRiskDevice = (tx: Tx, plan: RiskPlan) =>
  plan.deviceHash ? tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`risk:${plan.orgId}:${plan.deviceHash}`}, 0))` : null;

/** Scores the counts; `insert` writes the assessment as a RiskEvent (the caller runs it, alone or in a statement of its own). */
export function decideRisk(plan: RiskPlan, counts: RiskCounts): { assessment: RiskAssessment; insert: Prisma.Sql } {
  const { deviceEvents1h, sharedDeviceSubjects, ipEvents1h, orgEvents1m, orgEvents1h } = counts;
  if (orgEvents1h >= CAP.org1h) noteBusyHour(plan);
  const disposableEmail = plan.input.email ? isDisposableEmail(plan.input.email) : null;
  const reasons: RiskAssessment["reasons"] = [];
  const add = (code: string, weight: number, message: string) => {
    if (weight > 0) reasons.push({ code, weight, message });
  };
  if (disposableEmail) add("disposable_email", RULES.disposableEmail, "The email address uses a disposable email domain.");
  if (deviceEvents1h !== null)
    add(
      "device_velocity",
      tier(deviceEvents1h, RULES.deviceVelocity),
      `This device was assessed ${deviceEvents1h} times in the last hour.`,
    );
  if (sharedDeviceSubjects !== null)
    add(
      "shared_device",
      tier(sharedDeviceSubjects, RULES.sharedDevice),
      `This device is shared by ${sharedDeviceSubjects} people or accounts.`,
    );
  add("ip_velocity", tier(ipEvents1h, RULES.ipVelocity), `This client address was assessed ${ipEvents1h} times in the last hour.`);
  if (orgEvents1m >= RULES.orgPerMinute.at)
    add("org_velocity", RULES.orgPerMinute.weight, `The organization made ${orgEvents1m} assessments in the last minute.`);
  else if (orgEvents1h >= RULES.orgPerHour.at)
    add("org_velocity", RULES.orgPerHour.weight, `The organization made ${orgEvents1h} assessments in the last hour.`);
  const score = Math.min(
    100,
    reasons.reduce((s, r) => s + r.weight, 0),
  );
  const decision = score >= RISK_DENY_AT ? "deny" : score >= RISK_REVIEW_AT ? "review" : "allow";
  // Named one by one: callers hand over the row of their own read, which holds other columns too
  // (the challenge, the person, a KYC token), and none of those belong in the stored event.
  const signals = {
    deviceEvents1h,
    deviceEvents24h: counts.deviceEvents24h,
    sharedDeviceSubjects,
    ipEvents1h,
    ipSource: plan.ipSource,
    orgEvents1m,
    orgEvents1h,
    disposableEmail,
  };
  const id = randomUUID();
  // The event keeps keyed hashes and counts, never the fingerprint, the email address or the
  // client address itself (only its network, which the console shows).
  const insert = Prisma.sql`INSERT INTO risk_events (id, "orgId", kind, "subjectRef", "deviceFingerprintHash", "clientIpHash", "clientIp", score, decision, detail, "createdAt")
    VALUES (${id}::uuid, ${plan.orgId}::uuid, ${plan.kind}, ${plan.input.subjectRef ?? null}, ${plan.deviceHash}, ${plan.ipHash}, ${maskedClientIp(plan.ip)},
            ${score}, ${decision},
            ${JSON.stringify({ reasons, signals })}::jsonb, ${utcTimestamp(plan.now)})`;
  const assessment: RiskAssessment = {
    assessmentId: id,
    kind: plan.kind,
    score,
    decision,
    reasons,
    signals,
    createdAt: plan.now.toISOString(),
  };
  return { assessment, insert };
}

/**
 * Assesses one action and records it as a RiskEvent (written with `db`, which may be the caller's
 * transaction, or else in a short transaction of its own). Per-device counts are exact under
 * parallel calls (see lockRiskDevice); IP and organization counts are read without locks, so
 * parallel attempts may miss each other there, which those weak signals tolerate.
 */
export async function assessRisk(db: DbOrTx, ctx: ServiceContext, input: RiskAssessInput, kind: RiskKind): Promise<RiskAssessment> {
  const plan = planRisk(ctx, input, kind);
  const run = async (tx: DbOrTx) => {
    if (plan.deviceHash) await lockRiskDevice(tx as Tx, plan);
    const [counts] = await tx.$queryRaw<RiskCounts[]>`SELECT ${riskCountColumns(plan)}`;
    const { assessment, insert } = decideRisk(plan, counts!);
    await tx.$executeRaw(insert);
    return assessment;
  };
  // Without a device there is nothing to lock: the reads and the event need no transaction.
  if (isTransaction(db) || !plan.deviceHash) return run(db);
  return (db as Db).$transaction((tx) => run(tx));
}

/** POST /v1/risk/assess: an assessment the tenant asks for itself. */
export const assess = (ctx: ServiceContext, input: RiskAssessInput) => assessRisk(ctx.db, ctx, input, "manual");
