import { actorId, type ServiceContext } from "../../context";
import { sha256Hex } from "../../crypto/hash";
import { validationError } from "../../errors";
import { appendAudit } from "../audit";
import { importList, ListFormatError, refreshScreeningStatistics } from "./import";
import { decodeListFile } from "./import-files";
import { type ListUploadInput, UPLOAD_MAX_BYTES } from "./list-versions.schema";

/**
 * An organization's own watchlist, uploaded from the console: the same parsers, checks and atomic
 * version flip as `npm run screening:import`, but the version belongs to the organization and is
 * screened for it alone (docs/screening.md § Lists). A bad line is refused with its file and line
 * number, never its content; the same files again change nothing. A new version queues a
 * re-screen of the owner's people only, and is audited as `screening.list_imported`.
 */
export async function uploadOrgList(ctx: ServiceContext, input: ListUploadInput) {
  if (input.format !== "ofac" && input.files.length !== 1) {
    throw validationError([{ path: ["files"], message: `the ${input.format} format takes exactly one file` }]);
  }
  const files = input.files.map((f) => {
    const bytes = Buffer.from(f.contentBase64, "base64");
    // Only the base name: it is what an error names.
    const name = f.name.split(/[\\/]/).pop()?.slice(0, 100) || "file";
    return { name, bytes };
  });
  const total = files.reduce((n, f) => n + f.bytes.length, 0);
  if (total > UPLOAD_MAX_BYTES) {
    throw validationError([{ path: ["files"], message: `the files are larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MB together` }]);
  }
  if (files.some((f) => f.bytes.length === 0)) throw validationError([{ path: ["files"], message: "a file is empty" }]);
  const global = await ctx.db.screeningListVersion.findFirst({ where: { list: input.list, orgId: null }, select: { id: true } });
  if (global) throw validationError([{ path: ["list"], message: "is the name of a global list; choose another name" }]);
  try {
    const uploaded = await ctx.db.$transaction(
      async (tx) => {
        const res = await importList(tx, {
          format: input.format,
          list: input.list,
          files: files.map((f) => ({ name: f.name, text: decodeListFile(f.bytes), sha256: sha256Hex(f.bytes) })),
          importedBy: actorId(ctx.actor),
          orgId: ctx.org.id,
        });
        if (!res.unchanged) {
          await appendAudit(
            tx,
            { orgId: ctx.org.id, actor: ctx.actor },
            {
              action: "screening.list_imported",
              subjectType: "screening_list",
              subject: res.listVersionId,
              data: { list: res.list, format: res.format, entryCount: res.entryCount, skipped: res.skipped, fileHashes: res.fileHashes },
            },
          );
        }
        return {
          listVersionId: res.listVersionId,
          list: res.list,
          format: res.format,
          entryCount: res.entryCount,
          skipped: res.skipped,
          unchanged: res.unchanged,
        };
      },
      { timeout: 5 * 60_000, maxWait: 30_000 },
    );
    if (!uploaded.unchanged) await refreshScreeningStatistics(ctx.db, { indexesInBackground: true });
    return uploaded;
  } catch (err) {
    // File and line only (the message never quotes the line: it may hold personal data).
    if (err instanceof ListFormatError)
      throw validationError([{ path: ["files"], message: `${err.file}, line ${err.line}: ${err.reason}` }]);
    throw err;
  }
}
