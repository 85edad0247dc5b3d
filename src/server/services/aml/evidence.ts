import { hmacSha256Hex } from "../../crypto/hash";
import { openStored, sealedPersonId, sealForPerson } from "../../crypto/person-box";
import { deriveKey } from "../../crypto/secret-box";
import type { Tx } from "../../db/client";
import { isUuid } from "../../platform/ids";
import type { HitEvidence, ScreeningOutcome } from "./aml.schema";
import { readScreeningDetail, type StoredScoreBreakdown, type StoredScreeningDetail } from "./screening-detail";

/** The identity KYC verified, as the caller recording a hit holds it (never stored elsewhere). */
export type VerifiedSubject = { name?: string | null; birthDate?: string | null; country?: string | null };
/** What a KYC provider itself reported about the applicant. */
export type ProviderFinding = { name: string; sanctions: boolean; pep: boolean; labels: readonly string[] };

/** Matches kept per hit: the best ones, which are what a reviewer reads. */
const MAX_MATCHES = 5;

/**
 * How evidence is stored: as HitEvidence, except that the subject's verified name and birth date
 * are sealed under the person's data key (crypto/person-box.ts, destroyed by erasure), as the
 * identity kept for ongoing screening is. Evidence written before person keys is sealed with
 * BI_ENCRYPTION_KEY alone until the person data migration (services/people/person-data-migration.ts) re-seals it.
 */
type StoredEvidence = Omit<HitEvidence, "subject"> & {
  subject: { sealed: string | null; country: string | null; source: HitEvidence["subject"]["source"] };
};

/** Lower-case, accent-free name tokens. */
const tokens = (name: string) =>
  name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** What a search for a subject's name token looks for: a keyed hash, so the name itself is not stored in the clear. */
export const subjectTokenKey = (token: string) => `#${hmacSha256Hex(deriveKey("aml-subject-search"), token).slice(0, 24)}`;

/** The search conditions of a name query: its text within the listed names, or every token of it within the subject's name. */
export function searchTerms(q: string): { text: string; subjectKeys: string[] } {
  return { text: q.toLowerCase(), subjectKeys: tokens(q).map(subjectTokenKey) };
}

/** The person whose data key a stored evidence's subject is sealed under, if it is. */
export function evidenceKeyOwner(stored: unknown): string | null {
  const sealed = (stored as StoredEvidence | null)?.subject?.sealed;
  return sealed?.startsWith("p1.") ? sealedPersonId(sealed) : null;
}

/**
 * Stored evidence as the API shows it: the subject opened with the person's sealed data key
 * (`keySealed`, from person_keys), null fields if it cannot be (erased, or a retired key).
 */
export function evidenceView(stored: unknown, keySealed?: string | null): HitEvidence | null {
  if (!stored || typeof stored !== "object" || !("subject" in stored)) return null;
  const e = stored as StoredEvidence;
  let who: { name: string | null; birthDate: string | null } = { name: null, birthDate: null };
  const opened = e.subject.sealed ? openStored(e.subject.sealed, keySealed) : null;
  if (opened) {
    try {
      who = JSON.parse(opened) as typeof who;
    } catch {
      who = { name: null, birthDate: null };
    }
  }
  return { ...e, subject: { name: who.name, birthDate: who.birthDate, country: e.subject.country, source: e.subject.source } };
}

/** A matched list entry as the evidence reads it (screening_entries). */
export type EvidenceEntry = {
  id: string;
  externalId: string | null;
  name: string;
  aliases: string[];
  normalizedNames: string[];
  birthDates: string[];
  countries: string[];
  topics: string[];
  programme: string | null;
};

/** What a hit's evidence is built from, besides what the caller reads: the identity and findings it records. */
export type EvidenceInput = {
  orgId: string;
  personId: string;
  personCountry: string | null;
  outcome: ScreeningOutcome;
  subject?: VerifiedSubject;
  provider?: ProviderFinding;
};

/** The matches an evidence keeps (the best ones) and the ids of their list entries, to read. */
export function evidenceMatches(detail: StoredScreeningDetail): {
  stored: NonNullable<StoredScreeningDetail["matches"]>;
  entryIds: string[];
} {
  const stored = (detail.matches ?? []).slice(0, MAX_MATCHES);
  return { stored, entryIds: stored.map((m) => m.entryId).filter((id): id is string => !!id && isUuid(id)) };
}

/** The text sealed under the person's key for the evidence's subject (name and birth date), or null without either. */
export function evidenceSubjectText(input: EvidenceInput): string | null {
  if (!(input.subject?.name || input.subject?.birthDate)) return null;
  return JSON.stringify({ name: input.subject?.name ?? null, birthDate: input.subject?.birthDate ?? null });
}

/**
 * The evidence of one hit, built inside the transaction that records it: the subject as KYC
 * verified them, each matched list entry (names, aliases, list and programme, birth dates,
 * countries, list version) read now, because list versions are replaced and purged later, the
 * score in words, and the provider's own finding. Also what a search by name reads: the listed
 * names in lower case, and keyed hashes of the subject's name tokens.
 */
export async function buildEvidence(tx: Tx, input: EvidenceInput): Promise<{ evidence: StoredEvidence; searchText: string | null }> {
  const { outcome } = input;
  const result =
    outcome.resultId && isUuid(outcome.resultId)
      ? await tx.screeningResult.findFirst({ where: { id: outcome.resultId, orgId: input.orgId }, select: { detail: true } })
      : null;
  const detail = readScreeningDetail(result?.detail);
  const { entryIds } = evidenceMatches(detail);
  const entries = entryIds.length
    ? await tx.screeningEntry.findMany({
        where: { id: { in: entryIds } },
        select: {
          id: true,
          externalId: true,
          name: true,
          aliases: true,
          normalizedNames: true,
          birthDates: true,
          countries: true,
          topics: true,
          programme: true,
        },
      })
    : [];
  const text = evidenceSubjectText(input);
  const sealed = text ? await sealForPerson(tx, { id: input.personId, orgId: input.orgId }, text) : null;
  return composeEvidence(input, detail, entries, sealed);
}

/**
 * buildEvidence without its reads: from the screening result's detail, its matched entries as
 * read, and the subject's text already sealed (evidenceSubjectText). A caller writing the hit in
 * one statement (a KYC review, services/kyc/review.ts) reads and seals them itself.
 */
export function composeEvidence(
  input: EvidenceInput,
  detail: StoredScreeningDetail,
  entries: EvidenceEntry[],
  sealedSubject: string | null,
): { evidence: StoredEvidence; searchText: string | null } {
  const { outcome } = input;
  const { stored } = evidenceMatches(detail);
  const entryOf = new Map(entries.map((e) => [e.id, e]));
  const versionHashOf = new Map((detail.listVersions ?? []).map((v) => [v.id, v.versionHash ?? null]));
  const hasSubject = !!(input.subject?.name || input.subject?.birthDate);
  const subject = {
    name: input.subject?.name ?? null,
    birthDate: input.subject?.birthDate ?? null,
    country: input.subject?.country?.toUpperCase() ?? input.personCountry,
    source: hasSubject ? ("kyc_provider" as const) : ("person_record" as const),
  };

  const matches = stored.map((m) => {
    const e = m.entryId ? entryOf.get(m.entryId) : undefined;
    const b = m.breakdown ?? {};
    const aliasIndex = e && b.matchedName ? e.normalizedNames.indexOf(b.matchedName) : -1;
    return {
      entryId: m.entryId ?? "",
      externalId: e?.externalId ?? m.externalId ?? null,
      name: e?.name ?? m.name ?? "",
      aliases: e?.aliases ?? [],
      matchedName:
        aliasIndex > 0 ? (e!.aliases[aliasIndex - 1] ?? b.matchedName ?? null) : aliasIndex === 0 ? e!.name : (b.matchedName ?? null),
      list: m.list ?? "",
      listVersionId: m.listVersionId ?? null,
      listVersionHash: (m.listVersionId && versionHashOf.get(m.listVersionId)) || null,
      programme: e?.programme ?? m.programme ?? null,
      topics: e?.topics ?? m.topics ?? [],
      birthDates: e?.birthDates ?? [],
      countries: e?.countries ?? [],
      score: Math.round((m.score ?? b.total ?? 0) * 100),
      explanation: explainScore(b, aliasIndex, subject, { birthDates: e?.birthDates ?? [], countries: e?.countries ?? [] }),
    };
  });
  const provider = input.provider
    ? { name: input.provider.name, sanctions: input.provider.sanctions, pep: input.provider.pep, labels: [...input.provider.labels] }
    : null;
  const evidence: StoredEvidence = {
    subject: { sealed: hasSubject ? sealedSubject : null, country: subject.country, source: subject.source },
    matches,
    provider,
    summary: summarize(outcome, matches, provider),
  };
  const listed = matches.flatMap((m) => [m.name, ...m.aliases]).map((n) => n.toLowerCase());
  const subjectKeys = subject.name ? [...new Set(tokens(subject.name))].map(subjectTokenKey) : [];
  const searchText = [...listed, ...subjectKeys].join(" | ");
  return { evidence, searchText: searchText || null };
}

/**
 * The score of one match in words: which name matched and how closely (from the breakdown
 * screening stored, services/screening/score.ts), then how the verified birth date and country
 * compare with the entry's. Without a verified attribute, the sign of the stored adjustment says
 * whether it agreed.
 */
export function explainScore(
  b: Partial<StoredScoreBreakdown>,
  aliasIndex: number,
  subject: { birthDate: string | null; country: string | null },
  entry: { birthDates: readonly string[]; countries: readonly string[] },
): string {
  const which = aliasIndex > 0 ? "an alias" : aliasIndex === 0 ? "the listed name" : "a listed name";
  const jw = b.jaroWinkler ?? 0;
  const name = jw >= 0.9999 ? `name matches ${which} exactly` : `name is close to ${which} (${Math.round(jw * 100)}% similar)`;
  return [
    name,
    birthDateWords(subject.birthDate, entry.birthDates, b.birthDate ?? 0),
    countryWords(subject.country, entry.countries, b.country ?? 0),
  ].join("; ");
}

function birthDateWords(subject: string | null, listed: readonly string[], adj: number): string {
  if (!subject) return adj > 0 ? "birth date agrees" : adj < 0 ? "birth date disagrees" : "no verified birth date to compare";
  if (listed.length === 0) return "the list gives no birth date";
  if (listed.includes(subject)) return "birth date matches exactly";
  const year = Number(subject.slice(0, 4));
  const sameYear = listed.filter((d) => Number(d.slice(0, 4)) === year);
  if (sameYear.length) return sameYear.some((d) => d.length === 4) ? "birth year matches" : "birth year matches, the day differs";
  const gap = Math.min(...listed.map((d) => Math.abs(Number(d.slice(0, 4)) - year)));
  return gap === 1 ? "birth year differs by one" : `birth years differ by ${gap}`;
}

function countryWords(subject: string | null, listed: readonly string[], adj: number): string {
  if (!subject) return adj > 0 ? "country agrees" : adj < 0 ? "country disagrees" : "no verified country to compare";
  if (listed.length === 0) return "the list gives no country";
  return listed.includes(subject.toUpperCase()) ? "country matches" : "country differs";
}

function summarize(outcome: ScreeningOutcome, matches: HitEvidence["matches"], provider: HitEvidence["provider"]): string {
  const parts: string[] = [];
  const best = matches[0];
  if (best) {
    const more = matches.length > 1 ? ` and ${matches.length - 1} more` : "";
    parts.push(`Screening matched ${best.name} on ${best.list || "a list"} (score ${best.score})${more}: ${best.explanation}`);
  }
  if (provider && (provider.sanctions || provider.pep)) {
    const what = [provider.sanctions ? "sanctions" : null, provider.pep ? "PEP" : null].filter(Boolean).join(" and ");
    parts.push(
      `The KYC provider ${provider.name} reported a ${what} match${provider.labels.length ? ` (${provider.labels.join(", ")})` : ""}`,
    );
  }
  if (!parts.length) {
    const what = [outcome.sanctions ? "sanctions" : null, outcome.pep ? "PEP" : null].filter(Boolean).join(" and ");
    parts.push(`A ${what} match was reported without list details`);
  }
  return `${parts.join(". ")}.`;
}
