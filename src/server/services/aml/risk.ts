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
  /** Where a busy organization's minute or hour is read once its count reaches the cap (`noteBusyWindow`); null inside a transaction. */
  db: Db | null;
};

/**
 * The organization's counts of the last minute and hour, capped at `CAP.org1m` and `CAP.org1h`.
 * Per organization and window, until when that window is known to hold at least its cap: the time
 * of its cap-th newest event plus the window. Events are only ever added (none is deleted while
 * its organization exists), so until then the count is at its cap without reading it. For a busy
 * organization each count read up to its cap of rows in every bind confirm, free create and KYC
 * start (the minute's, though read newest first, often every event of the minute: the planner,
 * its statistics older than the minute, took a bitmap scan of them all, about 2,800 at 260 binds a
 * second); it is read once when the cap is first reached (`noteBusyWindow`), beside the request.
 * An entry goes once its time has passed (at the organization's next assessment, or when another
 * organization's window is noted), so the maps hold only the organizations busy in the last
 * minute or hour.
 */
const BUSY_WINDOWS = {
  minute: { span: MINUTE, cap: CAP.org1m, fullUntil: new Map<string, number>() },
  hour: { span: HOUR, cap: CAP.org1h, fullUntil: new Map<string, number>() },
} as const;
type BusyWindow = keyof typeof BUSY_WINDOWS;
/** The reads in flight, by window and organization. */
const busyReads = new Map<string, Promise<void>>();

/** The reads of busy windows in flight (tests wait for them). */
export const busyWindowReads = () => Promise.all(busyReads.values()).then(() => undefined);
/** The organizations whose minute or hour this process holds as full (tests). */
export const busyOrganizations = (window: BusyWindow) => [...BUSY_WINDOWS[window].fullUntil.keys()];

/** Whether the organization's window is known to be full at `now`; forgets it once over. */
function knownFull(window: BusyWindow, orgId: string, now: number): boolean {
  const { fullUntil } = BUSY_WINDOWS[window];
  const until = fullUntil.get(orgId);
  if (until !== undefined && until <= now) fullUntil.delete(orgId);
  return until !== undefined && until > now;
}

function noteBusyWindow(plan: RiskPlan, window: BusyWindow): void {
  const { orgId, now, db } = plan;
  const { span, cap, fullUntil } = BUSY_WINDOWS[window];
  const key = `${window}:${orgId}`;
  if (!db || knownFull(window, orgId, now.getTime()) || busyReads.has(key)) return;
  const read = db.$queryRaw<{ at: number | null }[]>`
      SELECT floor(extract(epoch FROM min("createdAt")) * 1000)::float8 AS at
      FROM (SELECT "createdAt" FROM risk_events WHERE "orgId" = ${orgId}::uuid AND "createdAt" >= ${utcTimestamp(new Date(now.getTime() - span))}
            ORDER BY "createdAt" DESC LIMIT ${cap}) w
      HAVING count(*) >= ${cap}`
    .then(([row]) => {
      // The windows over by now go: the map holds the organizations busy within the last window, not every one ever busy.
      for (const [other, until] of fullUntil) if (until <= now.getTime()) fullUntil.delete(other);
      if (row?.at != null) fullUntil.set(orgId, row.at + span);
    })
    .catch((err: Error) => logger().warn({ err: { message: err.message } }, `could not read the organization's busy ${window}`))
    .finally(() => busyReads.delete(key));
  busyReads.set(key, read);
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
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const capped = (where: Prisma.Sql, since: number, cap: number, newestFirst = false) =>
    Prisma.sql`(SELECT count(*) FROM (SELECT 1 FROM risk_events WHERE "orgId" = ${orgId}::uuid AND ${where} AND "createdAt" >= ${utcTimestamp(ago(since))}
                ${newestFirst ? Prisma.sql`ORDER BY "createdAt" DESC` : Prisma.empty} LIMIT ${cap}) c)::int`;
  const all = Prisma.sql`true`;
  // A device's rows are in either form, the keyed hash or the plain SHA-256 written before the
  // person data migration reaches them; an address's rows hold its keyed hash, or (hash NULL) it
  // in clear: one index on COALESCE of the two finds both (prisma/migrations/20261129000000_risk_events_address_index).
  // The organization's count of the last minute reads its newest events first, so the scan can stop
  // at the cap; with statistics older than the minute PostgreSQL still takes a bitmap scan of every
  // event of the minute, which is why a full minute is not read again (BUSY_WINDOWS). The hour's
  // count keeps the bitmap scan: its cap of 1,000 rows costs less read as a bitmap than fetched one
  // by one in order (0.3 against 1.5 ms).
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
    ${knownFull("minute", orgId, now.getTime()) ? Prisma.sql`${CAP.org1m}::int` : capped(all, MINUTE, CAP.org1m, true)} AS "orgEvents1m",
    ${knownFull("hour", orgId, now.getTime()) ? Prisma.sql`${CAP.org1h}::int` : capped(all, HOUR, CAP.org1h)} AS "orgEvents1h"`;
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
  if (orgEvents1m >= CAP.org1m) noteBusyWindow(plan, "minute");
  if (orgEvents1h >= CAP.org1h) noteBusyWindow(plan, "hour");
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
