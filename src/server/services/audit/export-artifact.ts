import type { AuditEntry } from "@/generated/prisma/client.ts";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import type { Db } from "../../db/client";
import type { ExportArtifact, ExportCheckpoint } from "./audit.schema";
import { auditEntryView, entryHash, GENESIS_HASH } from "./chain";
import { signCheckpoint } from "./checkpoint-proof";

/** Entries one artifact may hold; a longer range fails and asks for a shorter one. */
export const MAX_EXPORT_ENTRIES = 50_000;

/** A failure that retrying cannot fix: the job ends `failed` with this message (no personal data in it). */
export class ExportFailure extends Error {}

/**
 * Refuses to sign a broken range: every hash recomputes, seq runs without gaps, each entry links
 * to the one before, and the first links to its predecessor in the chain (or to genesis).
 */
function checkRange(entries: AuditEntry[], predecessorHash: string | null) {
  let prev = entries[0] && entries[0].seq === 1 ? GENESIS_HASH : predecessorHash;
  let expectedSeq = entries[0]?.seq ?? 0;
  for (const e of entries) {
    const broken = (why: string) => new ExportFailure(`The audit chain is broken at entry ${e.id} (${why}); run the chain verification.`);
    if (prev === null) throw broken("its predecessor is missing");
    if (e.seq !== expectedSeq) throw broken("a sequence number is missing");
    if (e.prevHash !== prev) throw broken("it does not link to the previous entry");
    if (entryHash(e) !== e.hash) throw broken("its hash does not match its contents");
    prev = e.hash;
    expectedSeq++;
  }
}

/**
 * Builds the signed artifact of [from, to) for one organization from one consistent snapshot.
 * The checkpoint's headHash is the hash of the last entry IN THE RANGE (so the signature commits
 * to exactly the exported entries); the chain head at build time is attested separately.
 */
export async function buildExportArtifact(db: Db, job: { orgId: string; from: Date; to: Date }, now = new Date()): Promise<ExportArtifact> {
  const { orgId } = job;
  const snap = await db.$transaction(
    async (tx) => {
      const entries = await tx.auditEntry.findMany({
        where: { orgId, createdAt: { gte: job.from, lt: job.to } },
        orderBy: { seq: "asc" },
        take: MAX_EXPORT_ENTRIES + 1,
      });
      const first = entries[0];
      const predecessor =
        first && first.seq > 1
          ? await tx.auditEntry.findUnique({ where: { orgId_seq: { orgId, seq: first.seq - 1 } }, select: { hash: true } })
          : null;
      const head = await tx.auditHead.findUnique({ where: { orgId } });
      return { entries, predecessorHash: predecessor?.hash ?? null, head };
    },
    { isolationLevel: "RepeatableRead", timeout: 120_000, maxWait: 10_000 },
  );
  if (snap.entries.length > MAX_EXPORT_ENTRIES) {
    throw new ExportFailure(`The range holds more than ${MAX_EXPORT_ENTRIES} audit entries; export a shorter range.`);
  }
  checkRange(snap.entries, snap.predecessorHash);

  const entries = snap.entries.map(auditEntryView);
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
