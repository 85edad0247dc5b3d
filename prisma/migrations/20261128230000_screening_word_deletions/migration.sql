-- CreateTable
CREATE TABLE "screening_word_deletions" (
    "listVersionId" UUID NOT NULL,
    "deletion" TEXT NOT NULL,
    "word" TEXT NOT NULL,

    CONSTRAINT "screening_word_deletions_pkey" PRIMARY KEY ("listVersionId","deletion","word")
);

-- AddForeignKey
ALTER TABLE "screening_word_deletions" ADD CONSTRAINT "screening_word_deletions_listVersionId_fkey" FOREIGN KEY ("listVersionId") REFERENCES "screening_list_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Versions imported before this migration get what the import now writes (import.ts,
-- retrieval.ts): a "w:<word>" key per word of two letters or more of every name, alias and weak
-- alias (in "nameKeys", screening_entry_keys and screening_key_counts), and each version's words
-- filed under themselves (three letters or more), every form one letter shorter (four or more) and,
-- for a consonant skeleton under two letters, "#" and that skeleton.
CREATE TEMPORARY TABLE word_keys ON COMMIT DROP AS
SELECT e.id, e."listVersionId", array_agg(DISTINCT 'w:' || t) AS keys
FROM screening_entries e, unnest(e."normalizedNames") AS v, unnest(string_to_array(ltrim(v, '='), ' ')) AS t
WHERE length(t) >= 2
GROUP BY e.id, e."listVersionId";

UPDATE screening_entries e SET "nameKeys" = e."nameKeys" || w.keys FROM word_keys w WHERE e.id = w.id;

INSERT INTO "screening_entry_keys" ("listVersionId", "key", "entryId")
SELECT w."listVersionId", unnest(w.keys), w.id FROM word_keys w;

INSERT INTO "screening_key_counts" ("listVersionId", "key", "entries")
SELECT "listVersionId", k, count(*)::int FROM word_keys, unnest(keys) AS k GROUP BY "listVersionId", k;

INSERT INTO "screening_word_deletions" ("listVersionId", "deletion", "word")
SELECT DISTINCT x."listVersionId", d.deletion, x.word
FROM (
  SELECT DISTINCT "listVersionId", substr(k, 3) AS word,
    regexp_replace(regexp_replace(substr(k, 3), '[aeiouy]', '', 'g'), '(.)\1+', '\1', 'g') AS skeleton
  FROM word_keys, unnest(keys) AS k) x
CROSS JOIN LATERAL (
  SELECT x.word AS deletion WHERE length(x.word) >= 3
  UNION
  SELECT left(x.word, i - 1) || substr(x.word, i + 1) FROM generate_series(1, length(x.word)) AS i WHERE length(x.word) >= 4
  UNION
  SELECT '#' || x.skeleton WHERE length(x.skeleton) < 2
) d;
