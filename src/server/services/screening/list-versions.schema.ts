import { z } from "zod";

export const ListVersionView = z.object({
  listVersionId: z.uuid(),
  list: z.string(),
  format: z.enum(["ftm", "ofac", "labels"]),
  /** Entries (people) or labelled accounts in this version. */
  entryCount: z.int(),
  versionHash: z.string(),
  active: z.boolean(),
  importedBy: z.string(),
  importedAt: z.iso.datetime(),
  activatedAt: z.iso.datetime().nullable(),
  /** global: reference data screened for every organization; organization: your own upload, screened for you alone. */
  scope: z.enum(["global", "organization"]),
});

export const ListVersionsQuery = z.object({
  /** Only this list's versions. */
  list: z.string().min(1).max(100).optional(),
  limit: z.coerce.number<string>().pipe(z.int().min(1).max(200)).default(50),
});
export type ListVersionsQuery = z.output<typeof ListVersionsQuery>;

export const ListVersionsView = z.object({ versions: z.array(ListVersionView) });

export const ListDiffQuery = z.object({
  /** The older version. */
  from: z.uuid(),
  /** The newer version, of the same list. */
  to: z.uuid(),
});
export type ListDiffQuery = z.output<typeof ListDiffQuery>;

export const ListDiffView = z.object({
  list: z.string(),
  from: z.uuid(),
  to: z.uuid(),
  counts: z.object({ added: z.int(), removed: z.int(), changed: z.int() }),
  /** External ids (entries) or chain accounts (labels), sorted; at most 1,000 each (`truncated` says when more). */
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
  truncated: z.boolean(),
  /** The name of each listed id (the newer version's, or the older one's for a removed entry; the chain account for labels). */
  names: z.record(z.string(), z.string()),
});

/** Bytes of an organization's upload at most, all files together. */
export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;

export const ListUploadInput = z.strictObject({
  format: z.enum(["ftm", "ofac", "labels"]),
  /** The organization's name for its list; a new name starts a new list, the same name a new version of it. */
  list: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "use 1–64 lower-case letters, digits, dots, dashes or underscores"),
  /** ofac: SDN.CSV and optionally ALT.CSV; ftm and labels: one file. Content in base64 (the bytes as they are). */
  files: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(255),
        contentBase64: z.base64().max(Math.ceil(UPLOAD_MAX_BYTES / 3) * 4 + 4),
      }),
    )
    .min(1)
    .max(2),
});
export type ListUploadInput = z.output<typeof ListUploadInput>;
