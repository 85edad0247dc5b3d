-- Candidate retrieval moves from a GIN index on screening_entries."nameKeys" (which the planner
-- abandoned for a sequential scan on 50,000 entries) to an inverted index table read by its
-- primary key.

-- DropIndex
DROP INDEX "screening_entries_nameKeys_idx";

-- CreateTable
CREATE TABLE "screening_entry_keys" (
    "listVersionId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "entryId" UUID NOT NULL,

    CONSTRAINT "screening_entry_keys_pkey" PRIMARY KEY ("listVersionId","key","entryId")
);

-- AddForeignKey
ALTER TABLE "screening_entry_keys" ADD CONSTRAINT "screening_entry_keys_listVersionId_fkey" FOREIGN KEY ("listVersionId") REFERENCES "screening_list_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Keys of versions imported before this migration.
INSERT INTO "screening_entry_keys" ("listVersionId", "key", "entryId")
SELECT DISTINCT "listVersionId", unnest("nameKeys"), "id" FROM "screening_entries";
