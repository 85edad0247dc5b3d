import { createRequire } from "node:module";
import type { ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import type { Db, DbOrTx, Tx } from "../../db/client";
import { isTransaction } from "../../db/tx";
import { normalizeIp } from "../../net/cidr";
import type { RiskAssessInput, RiskAssessment, RiskKind } from "./risk.schema";

// Anti-abuse risk: velocity per device, per client IP and per organization over recent windows,
// one device shared across several people or accounts, and disposable email domains from the
// maintained `disposable-email-domains` list. Every assessment is kept as a RiskEvent row, which
// is also what later velocity counts read, so refused attempts count too.

const require = createRequire(import.meta.url);
const DISPOSABLE = new Set<string>((require("disposable-email-domains") as string[]).map((d) => d.toLowerCase()));
/** Domains whose every subdomain is disposable too. */
const DISPOSABLE_WILDCARD = new Set<string>((require("disposable-email-domains/wildcard.json") as string[]).map((d) => d.toLowerCase()));

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
  if (DISPOSABLE.has(domain)) return true;
  const labels = domain.split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    if (DISPOSABLE_WILDCARD.has(labels.slice(i).join("."))) return true;
  }
  return false;
}

const tier = (n: number, tiers: ReadonlyArray<{ at: number; weight: number }>) => tiers.find((t) => n >= t.at)?.weight ?? 0;

/** Distinct people and accounts seen with one device: accounts created with it, and earlier assessments. */
async function deviceSubjects(db: DbOrTx, orgId: string, deviceHash: string, since: Date, current?: string) {
  const [accounts, events] = await Promise.all([
    db.account.findMany({ where: { orgId, deviceFingerprintHash: deviceHash }, select: { did: true }, take: 100 }),
    db.riskEvent.findMany({
      where: { orgId, deviceFingerprintHash: deviceHash, subjectRef: { not: null }, createdAt: { gte: since } },
      select: { subjectRef: true },
      distinct: ["subjectRef"],
      take: 100,
    }),
  ]);
  const subjects = new Set<string>([...accounts.map((a) => a.did), ...events.map((e) => e.subjectRef!)]);
  if (current) subjects.add(current);
  return subjects.size;
}

/**
 * Assesses one action and records it as a RiskEvent (written with `db`, which may be the caller's
 * transaction, or else in a short transaction of its own). Per-device counts are exact under
 * parallel calls (a transaction-scoped advisory lock per organization and device); IP and
 * organization counts are read without locks, so parallel attempts may miss each other there,
 * which those weak signals tolerate.
 */
export async function assessRisk(db: DbOrTx, ctx: ServiceContext, input: RiskAssessInput, kind: RiskKind): Promise<RiskAssessment> {
  return isTransaction(db) ? assessIn(db as Tx, ctx, input, kind) : (db as Db).$transaction((tx) => assessIn(tx, ctx, input, kind));
}

async function assessIn(db: Tx, ctx: ServiceContext, input: RiskAssessInput, kind: RiskKind): Promise<RiskAssessment> {
  const orgId = ctx.org.id;
  const now = ctx.now();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const deviceHash = input.deviceFingerprint ? sha256Hex(input.deviceFingerprint) : null;
  const ip = (input.ipAddress && normalizeIp(input.ipAddress)) || normalizeIp(ctx.clientIp) || ctx.clientIp;
  const ipSource = input.ipAddress ? ("input" as const) : ("caller" as const);

  // Assessments of one device queue up until the previous one's event is committed, so a burst of
  // parallel attempts from one device is counted exactly, which is what such a burst is for.
  if (deviceHash) await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`risk:${orgId}:${deviceHash}`}, 0))`;
  const count = (where: object, since: number) => db.riskEvent.count({ where: { orgId, ...where, createdAt: { gte: ago(since) } } });
  const [deviceEvents1h, deviceEvents24h, sharedDeviceSubjects, ipEvents1h, orgEvents1m, orgEvents1h] = await Promise.all([
    deviceHash ? count({ deviceFingerprintHash: deviceHash }, HOUR) : null,
    deviceHash ? count({ deviceFingerprintHash: deviceHash }, DAY) : null,
    deviceHash ? deviceSubjects(db, orgId, deviceHash, ago(SHARED_DEVICE_WINDOW), input.subjectRef) : null,
    count({ clientIp: ip }, HOUR),
    count({}, MINUTE),
    count({}, HOUR),
  ]);
  const disposableEmail = input.email ? isDisposableEmail(input.email) : null;

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
  const signals = {
    deviceEvents1h,
    deviceEvents24h,
    sharedDeviceSubjects,
    ipEvents1h,
    ipSource,
    orgEvents1m,
    orgEvents1h,
    disposableEmail,
  };
  // The event keeps hashes and counts, never the fingerprint or the email address itself.
  const event = await db.riskEvent.create({
    data: {
      orgId,
      kind,
      subjectRef: input.subjectRef ?? null,
      deviceFingerprintHash: deviceHash,
      clientIp: ip,
      score,
      decision,
      detail: { reasons, signals },
      createdAt: now,
    },
  });
  return { assessmentId: event.id, kind, score, decision, reasons, signals, createdAt: event.createdAt.toISOString() };
}

/** POST /v1/risk/assess: an assessment the tenant asks for itself. */
export const assess = (ctx: ServiceContext, input: RiskAssessInput) => assessRisk(ctx.db, ctx, input, "manual");
