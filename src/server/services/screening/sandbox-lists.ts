import path from "node:path";
import { env } from "@/env";
import type { DbOrTx } from "../../db/client";
import { DEFAULT_LIST, type ImportResult } from "./import";
import { importListFiles } from "./import-files";
import type { ListFormat } from "./list-types";

/** The fixture lists a sandbox screens against until an operator imports real ones. */
export const FIXTURE_DIR = path.resolve(process.cwd(), "fixtures/screening");
export const SANDBOX_FIXTURES: { format: ListFormat; files: string[] }[] = [
  { format: "ftm", files: ["entities.ftm.json"] },
  { format: "ofac", files: ["SDN.CSV", "ALT.CSV"] },
  { format: "labels", files: ["account-labels.csv"] },
];

let ready = false;

/**
 * In sandbox, loads each fixture list whose list has no active version. Cheap after the first
 * success (remembered per process); safe with several instances, since each import takes the
 * list's advisory lock and re-checks inside it (`onlyIfNone`). Given a transaction (a KYC
 * approval), the small fixture import joins it rather than opening another: the embedded
 * database has one connection, so a second transaction would wait for the first forever.
 */
export async function ensureSandboxLists(db: DbOrTx): Promise<ImportResult[]> {
  if (ready || env().BI_ENV !== "sandbox") return [];
  const active = await db.screeningListVersion.findMany({
    where: { active: true, list: { in: SANDBOX_FIXTURES.map((f) => DEFAULT_LIST[f.format]) } },
    select: { list: true },
  });
  const have = new Set(active.map((a) => a.list));
  const out: ImportResult[] = [];
  for (const f of SANDBOX_FIXTURES) {
    if (have.has(DEFAULT_LIST[f.format])) continue;
    out.push(
      await importListFiles(db, {
        format: f.format,
        paths: f.files.map((name) => path.join(FIXTURE_DIR, name)),
        importedBy: "system:sandbox-fixtures",
        onlyIfNone: true,
      }),
    );
  }
  // Remembered only once every list was found loaded: an import made inside a caller's
  // transaction may still roll back, so the next screen checks again (one indexed query).
  if (out.length === 0) ready = true;
  return out;
}

/** Tests only: forget that the lists were loaded in this process. */
export function resetSandboxListsMemo() {
  ready = false;
}
