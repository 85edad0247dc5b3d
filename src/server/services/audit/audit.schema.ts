import { z } from "zod";

/** Longest export range, so one artifact stays a size a compliance officer can download and check. */
export const MAX_EXPORT_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

const limitParam = (max: number, fallback: number) => z.coerce.number<string>().pipe(z.int().min(1).max(max)).default(fallback);

export const AuditListQuery = z.object({
  limit: limitParam(200, 50),
  /** Entries with a smaller seq than this (the `nextBefore` of the previous page). */
  before: z.coerce.number<string>().pipe(z.int().min(1)).optional(),
});
export type AuditListQuery = z.output<typeof AuditListQuery>;

export const AuditEntryView = z.object({
  id: z.uuid(),
  seq: z.int(),
  actor: z.string(),
  action: z.string(),
  subjectType: z.string().nullable(),
  subject: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.iso.datetime(),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEntryView = z.output<typeof AuditEntryView>;

/** An entry as the admin reads list it: the chained fields plus names and one sentence in words. */
export const AuditActivityView = AuditEntryView.extend({
  /** Who acted, by name: "API key 'backend' (bi_test_ab12cd34)", a member's email, or the system part. */
  actorName: z.string().meta({ examples: ["API key 'backend' (bi_test_ab12cd34)"] }),
  /** What the entry is about, by name: "Person 7F3A-21C9", an account name, a key's name; null when unnamed. */
  subjectName: z
    .string()
    .nullable()
    .meta({ examples: ["Person 7F3A-21C9"] }),
  /** The entry in words: "ops@acme.test cleared the AML case for Person 7F3A-21C9". */
  summary: z.string().meta({ examples: ["ops@acme.test cleared the AML case for Person 7F3A-21C9"] }),
});

export const AuditListView = z.object({
  entries: z.array(AuditActivityView),
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextBefore: z.int().nullable(),
});

export const VerifyResultView = z.object({
  valid: z.boolean(),
  entries: z.int(),
  headHash: z.string(),
  firstInvalidEntryId: z.uuid().optional(),
  reason: z.string().optional(),
});

export const ExportRequestInput = z
  .object({
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
  })
  .refine((r) => Date.parse(r.from) < Date.parse(r.to), { path: ["to"], message: "to must be later than from" })
  .refine((r) => Date.parse(r.to) - Date.parse(r.from) <= MAX_EXPORT_RANGE_DAYS * DAY_MS, {
    path: ["to"],
    message: `the range may span at most ${MAX_EXPORT_RANGE_DAYS} days`,
  });
export type ExportRequestInput = z.output<typeof ExportRequestInput>;

export const ExportStatusEnum = z.enum(["queued", "running", "completed", "failed"]);

export const ExportJobParams = z.object({ jobId: z.string() });

export const ExportListQuery = z.object({ limit: limitParam(100, 50) });

export const ExportCreatedView = z.object({ jobId: z.uuid(), status: z.literal("queued") });

export const ExportCheckpoint = z.object({
  type: z.literal("bi-audit-checkpoint/1"),
  organizationId: z.uuid(),
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  count: z.int().min(0),
  firstSeq: z.int().nullable(),
  lastSeq: z.int().nullable(),
  /** Hash of the last entry in the range (null when the range is empty). */
  headHash: z.string().nullable(),
  /** Hex SHA-256 of the JCS form of `entries`, covering the entry ids that the chain hashes leave out. */
  entriesDigest: z.string(),
  /** The organization's chain head when the artifact was built, attested for later comparison. */
  chainHead: z.object({ seq: z.int(), hash: z.string() }),
  createdAt: z.iso.datetime(),
});
export type ExportCheckpoint = z.output<typeof ExportCheckpoint>;

export const ExportProof = z.object({
  alg: z.literal("Ed25519"),
  canonicalization: z.literal("JCS"),
  /** did:web:<host>#<publicKeyMultibase>, listed in /.well-known/did.json. */
  verificationMethod: z.string(),
  /** Ed25519 signature over the UTF-8 JCS (RFC 8785) form of `checkpoint`, base58btc multibase ("z..."). */
  signatureMultibase: z.string(),
});

export const ExportArtifact = z.object({
  format: z.literal("bi-audit-export/1"),
  organizationId: z.uuid(),
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  entries: z.array(AuditEntryView),
  checkpoint: ExportCheckpoint,
  proof: ExportProof,
});
export type ExportArtifact = z.output<typeof ExportArtifact>;

export const ExportJobSummary = z.object({
  jobId: z.uuid(),
  status: ExportStatusEnum,
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().optional(),
  /** Why the job failed (no personal data). */
  error: z.string().optional(),
});

export const ExportJobView = ExportJobSummary.extend({ artifact: ExportArtifact.optional() });

export const ExportListView = z.object({ exports: z.array(ExportJobSummary) });
