import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { type Db, Prisma } from "../../db/client";
import { timestampTz } from "../../db/sql";
import type { ExportArtifact, ExportCheckpoint } from "./audit.schema";
import { GENESIS_HASH } from "./chain";
import { signCheckpoint } from "./checkpoint-proof";
import { ChainChecker, ENTRY_COLUMNS, type EntryRow, entryRowView } from "./verify";

/** Entries one artifact may hold; a longer range fails and asks for a shorter one. */
export const MAX_EXPORT_ENTRIES = 50_000;

/** A failure that retrying cannot fix: the job ends `failed` with this message (no personal data in it). */
export class ExportFailure extends Error {}

/**
 * Refuses to sign a broken range: every hash recomputes, seq runs without gaps, each entry links
 * to the one before, and the first links to its predecessor in the chain (or to genesis). The same
 * check as the chain's verification, on the same rows.
 */
function checkRange(orgId: string, rows: EntryRow[], predecessorHash: string | null) {
  const first = rows[0];
  if (!first) return;
  const prev = first[1] === 1 ? GENESIS_HASH : predecessorHash;
  if (prev === null) throw broken(first[0], "its predecessor is missing");
  const failed = new ChainChecker(orgId, first[1], prev).check(rows);
  if (failed) throw broken(failed.firstInvalidEntryId!, failed.reason!);
}

const broken = (id: string, why: string) =>
  new ExportFailure(`The audit chain is broken at entry ${id} (${why}); run the chain verification.`);

/**
 * Builds the signed artifact of [from, to) for one organization from one consistent snapshot.
 * The checkpoint's headHash is the hash of the last entry IN THE RANGE (so the signature commits
 * to exactly the exported entries); the chain head at build time is attested separately.
 */
export async function buildExportArtifact(db: Db, job: { orgId: string; from: Date; to: Date }, now = new Date()): Promise<ExportArtifact> {
  const { orgId } = job;
  const snap = await db.$transaction(
    async (tx) => {
      const entries = (
        await tx.$queryRaw<Record<string, unknown>[]>(
          Prisma.sql`SELECT ${Prisma.raw(ENTRY_COLUMNS)} FROM audit_entries
                     WHERE "orgId" = ${orgId}::uuid AND "createdAt" >= ${timestampTz(job.from)} AND "createdAt" < ${timestampTz(job.to)}
                     ORDER BY seq LIMIT ${MAX_EXPORT_ENTRIES + 1}`,
        )
      ).map((r) => Object.values(r) as EntryRow);
      const first = entries[0];
      const predecessor =
        first && first[1] > 1
          ? await tx.auditEntry.findUnique({ where: { orgId_seq: { orgId, seq: first[1] - 1 } }, select: { hash: true } })
          : null;
      const head = await tx.auditHead.findUnique({ where: { orgId } });
      return { entries, predecessorHash: predecessor?.hash ?? null, head };
    },
    { isolationLevel: "RepeatableRead", timeout: 120_000, maxWait: 10_000 },
  );
  if (snap.entries.length > MAX_EXPORT_ENTRIES) {
    throw new ExportFailure(`The range holds more than ${MAX_EXPORT_ENTRIES} audit entries; export a shorter range.`);
  }
  checkRange(orgId, snap.entries, snap.predecessorHash);

  const entries = snap.entries.map(entryRowView);
  const last = entries[entries.length - 1];
  const checkpoint: ExportCheckpoint = {
    type: "bi-audit-checkpoint/1",
    organizationId: orgId,
    from: job.from.toISOString(),
    to: job.to.toISOString(),
    count: entries.length,
    firstSeq: entries[0]?.seq ?? null,
    lastSeq: last?.seq ?? null,
    headHash: last?.hash ?? null,
    entriesDigest: sha256Hex(jcs(entries)),
    chainHead: { seq: snap.head?.seq ?? 0, hash: snap.head?.hash ?? GENESIS_HASH },
    createdAt: now.toISOString(),
  };
  return {
    format: "bi-audit-export/1",
    organizationId: orgId,
    from: checkpoint.from,
    to: checkpoint.to,
    entries,
    checkpoint,
    proof: signCheckpoint(checkpoint),
  };
}
