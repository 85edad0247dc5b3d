import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { sha256Hex } from "../../crypto/hash";
import type { DbOrTx } from "../../db/client";
import { activateVersion, CHUNK, DEFAULT_LIST, entryRow, type ImportResult, insertEntries, inTransaction, lockList } from "./import";
import { parseFtmLine } from "./parse-ftm";

/**
 * Streams an FtM JSON-lines file into a new version inside one transaction: entries are inserted
 * in chunks while the file is read and hashed, so memory stays flat however large the file. The
 * version stays inactive until the last line; a malformed line throws (ListFormatError, file and
 * line) and the transaction takes every inserted row back with it. When the finished file turns
 * out identical to the active version, the new version is deleted again (its rows cascade) and
 * nothing changes.
 */
export async function importFtmFile(
  db: DbOrTx,
  opts: { path: string; list?: string; importedBy: string; onlyIfNone?: boolean; orgId?: string | null },
): Promise<ImportResult> {
  const list = opts.list ?? DEFAULT_LIST.ftm;
  const file = path.basename(opts.path);
  const orgId = opts.orgId ?? null;
  return inTransaction(db, async (tx) => {
    const active = await lockList(tx, list, orgId);
    const unchanged = (a: NonNullable<typeof active>, skipped: number): ImportResult => ({
      list,
      format: "ftm",
      listVersionId: a.id,
      versionHash: a.versionHash,
      fileHashes: a.fileHashes,
      entryCount: a.entryCount,
      skipped,
      unchanged: true,
    });
    if (active && opts.onlyIfNone) return unchanged(active, 0);
    const version = await tx.screeningListVersion.create({
      data: { list, format: "ftm", fileHashes: [], versionHash: "importing", entryCount: 0, importedBy: opts.importedBy, orgId },
    });
    const hash = createHash("sha256");
    const stream = fs.createReadStream(opts.path);
    stream.on("data", (chunk) => hash.update(chunk));
    const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
    const seen = new Set<string>();
    let batch: ReturnType<typeof entryRow>[] = [];
    let lineNo = 0;
    let count = 0;
    let skipped = 0;
    try {
      for await (const line of lines) {
        const e = parseFtmLine(line, ++lineNo, file, seen);
        if (e === "skip") skipped++;
        if (!e || e === "skip") continue;
        batch.push(entryRow(version.id, e));
        count++;
        if (batch.length >= CHUNK) {
          await insertEntries(tx, batch);
          batch = [];
        }
      }
    } finally {
      lines.close();
      stream.destroy();
    }
    await insertEntries(tx, batch);
    const fileHashes = [hash.digest("hex")];
    const versionHash = sha256Hex(`ftm\n${fileHashes.join("\n")}`);
    if (active && active.versionHash === versionHash) {
      await tx.screeningListVersion.delete({ where: { id: version.id } });
      return unchanged(active, skipped);
    }
    await tx.screeningListVersion.update({ where: { id: version.id }, data: { fileHashes, versionHash, entryCount: count } });
    await activateVersion(tx, list, version.id, orgId);
    return { list, format: "ftm", listVersionId: version.id, versionHash, fileHashes, entryCount: count, skipped, unchanged: false };
  });
}
