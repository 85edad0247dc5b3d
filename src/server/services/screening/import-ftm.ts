import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import type { Readable } from "node:stream";
import { sha256Hex } from "../../crypto/hash";
import type { DbOrTx } from "../../db/client";
import {
  activateVersion,
  CHUNK,
  DEFAULT_LIST,
  EntryWriter,
  entryRow,
  type ImportResult,
  inTransaction,
  lockList,
  refreshedAfter,
} from "./import";
import { parseFtmLine } from "./parse-ftm";

/**
 * Streams an FtM JSON-lines file from disk into a new version (importFtmStream), hashing its bytes
 * as they are read.
 */
export function importFtmFile(
  db: DbOrTx,
  opts: { path: string; list?: string; importedBy: string; onlyIfNone?: boolean; orgId?: string | null },
): Promise<ImportResult> {
  const { path: filePath, ...rest } = opts;
  return importFtmStream(db, { ...rest, name: path.basename(filePath), open: () => fs.createReadStream(filePath) });
}

/**
 * Streams FtM JSON lines into a new version inside one transaction: entries are inserted in
 * chunks while the input is read and hashed, so memory stays flat however large the input (a
 * file of gigabytes, or a generator that never builds the whole text). The version stays inactive
 * until the last line; a malformed line throws (ListFormatError, `name` and line) and the
 * transaction takes every inserted row back with it. When the finished input turns out identical
 * to the active version, the new version is deleted again (its rows cascade) and nothing changes.
 * `open` is called once the list's lock is held (never when onlyIfNone finds a list).
 */
export async function importFtmStream(
  db: DbOrTx,
  opts: { open: () => Readable; name: string; list?: string; importedBy: string; onlyIfNone?: boolean; orgId?: string | null },
): Promise<ImportResult> {
  const list = opts.list ?? DEFAULT_LIST.ftm;
  const file = opts.name;
  const orgId = opts.orgId ?? null;
  return refreshedAfter(
    db,
    inTransaction(db, async (tx) => {
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
      // Before the input is opened: the stream flows from its first listener, and lines read
      // before the loop below starts would be lost.
      const writer = await EntryWriter.open(tx, version.id);
      const hash = createHash("sha256");
      const stream = opts.open();
      stream.on("data", (chunk: Buffer | string) => hash.update(chunk));
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
            await writer.write(batch);
            batch = [];
          }
        }
        await writer.write(batch);
        await writer.flush();
      } finally {
        await writer.settle();
        lines.close();
        stream.destroy();
      }
      const fileHashes = [hash.digest("hex")];
      const versionHash = sha256Hex(`ftm\n${fileHashes.join("\n")}`);
      if (active && active.versionHash === versionHash) {
        await writer.discard();
        await tx.screeningListVersion.delete({ where: { id: version.id } });
        return unchanged(active, skipped);
      }
      await writer.writeCounts();
      await tx.screeningListVersion.update({ where: { id: version.id }, data: { fileHashes, versionHash, entryCount: count } });
      await writer.finish();
      await activateVersion(tx, list, version.id, orgId);
      return { list, format: "ftm", listVersionId: version.id, versionHash, fileHashes, entryCount: count, skipped, unchanged: false };
    }),
  );
}
