import fs from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../crypto/hash";
import type { DbOrTx } from "../../db/client";
import { type ImportOptions, type ImportResult, importList } from "./import";
import { importFtmFile } from "./import-ftm";

// Lists read from disk: the operator's `npm run screening:import` and the sandbox fixtures.

/**
 * UTF-8, or Windows-1252 when the bytes are not valid UTF-8: OFAC's legacy CSV files have been
 * published in the latter, and a wrong guess would only garble accents, never lose a line.
 */
export function decodeListFile(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/**
 * Reads the files from disk (names in errors are the base names) and imports them. An FtM file
 * streams line by line (OpenSanctions' files run to gigabytes); the others are small.
 */
export async function importListFiles(db: DbOrTx, opts: Omit<ImportOptions, "files"> & { paths: string[] }): Promise<ImportResult> {
  if (opts.format === "ftm" && opts.paths.length === 1) {
    return importFtmFile(db, { ...opts, path: opts.paths[0]! });
  }
  const files = await Promise.all(
    opts.paths.map(async (p) => {
      const bytes = await fs.readFile(p);
      return { name: path.basename(p), text: decodeListFile(bytes), sha256: sha256Hex(bytes) };
    }),
  );
  return importList(db, { ...opts, files });
}
