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
});
