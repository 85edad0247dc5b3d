-- CreateTable
CREATE TABLE "screening_key_counts" (
    "listVersionId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "entries" INTEGER NOT NULL,

    CONSTRAINT "screening_key_counts_pkey" PRIMARY KEY ("listVersionId","key")
);

-- AddForeignKey
ALTER TABLE "screening_key_counts" ADD CONSTRAINT "screening_key_counts_listVersionId_fkey" FOREIGN KEY ("listVersionId") REFERENCES "screening_list_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Initials ("i:<letter>" for every one-letter token of a name, alias or weak alias) join the keys
-- of versions imported before this migration, as the import now writes them: retrieval reads
-- them to know which entries could pair an initial with a query word.
WITH initials AS (
  SELECT e.id, e."listVersionId", array_agg(DISTINCT 'i:' || t) AS keys
  FROM screening_entries e, unnest(e."normalizedNames") AS v, unnest(string_to_array(ltrim(v, '='), ' ')) AS t
  WHERE length(t) = 1
  GROUP BY e.id, e."listVersionId"),
updated AS (
  UPDATE screening_entries e SET "nameKeys" = e."nameKeys" || i.keys FROM initials i WHERE e.id = i.id
  RETURNING e.id)
INSERT INTO "screening_entry_keys" ("listVersionId", "key", "entryId")
SELECT i."listVersionId", unnest(i.keys), i.id FROM initials i JOIN updated u ON u.id = i.id;

-- Counts of the keys of versions imported before this migration.
INSERT INTO "screening_key_counts" ("listVersionId", "key", "entries")
SELECT "listVersionId", "key", count(*)::int FROM "screening_entry_keys" GROUP BY "listVersionId", "key";
