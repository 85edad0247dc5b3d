import type { Prisma } from "@/generated/prisma/client.ts";

// What a screening result keeps in its `detail` column. The screening domain writes it (a screen
// at KYC approval, every re-screen); the AML case views and the screening reads read it back. It
// is declared here, below both in the domain order (screening → aml), so the writers and every
// reader share one type instead of each declaring the fields it happens to use.

/** The score of one match as screening computed it (services/screening/score.ts, Breakdown). */
export type StoredScoreBreakdown = {
  matchedName: string;
  jaroWinkler: number;
  birthDate: number;
  country: number;
  total: number;
  [part: string]: string | number | boolean;
};

/** One matched list entry. */
export type StoredScreeningMatch = {
  entryId: string;
  listVersionId: string;
  list: string;
  externalId: string;
  name: string;
  topics: string[];
  programme: string | null;
  score: number;
  breakdown: StoredScoreBreakdown;
};

/** The detail as written now. */
export type ScreeningResultDetail = {
  scoringVersion: string;
  threshold: number;
  /** A hash of the normalised query: never the name itself. */
  queryHash: string;
  listVersions: { id: string; list: string; versionHash: string }[];
  matches: StoredScreeningMatch[];
  /** Set when a re-screen (ongoing monitoring) wrote it. */
  monitoringRunId?: string;
};

/** A detail as read back: rows written by earlier versions may lack any field but a list version's id. */
export type StoredScreeningDetail = Partial<Omit<ScreeningResultDetail, "listVersions" | "matches">> & {
  listVersions?: ({ id: string } & Partial<ScreeningResultDetail["listVersions"][number]>)[];
  matches?: (Partial<Omit<StoredScreeningMatch, "breakdown">> & { breakdown?: Partial<StoredScoreBreakdown> })[];
};

export const readScreeningDetail = (json: Prisma.JsonValue | null | undefined): StoredScreeningDetail =>
  (json ?? {}) as StoredScreeningDetail;

/** The detail as the JSON column takes it. */
export const screeningDetailJson = (detail: ScreeningResultDetail) => detail as unknown as Prisma.InputJsonObject;
