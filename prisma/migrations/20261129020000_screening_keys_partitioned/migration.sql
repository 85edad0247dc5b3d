-- screening_entry_keys becomes a table partitioned by list version (docs/screening.md, "Importing
-- a large list"): an import of a large version writes its key rows into a table of its own without
-- index, builds that table's primary key in one sorted pass and attaches it as the version's
-- partition, instead of inserting millions of rows one by one into one shared primary key. Small
-- versions, and every version imported before this migration, stay in the default partition:
-- the existing table, renamed and attached as it is (its rows are not copied).

ALTER TABLE "screening_entry_keys" RENAME TO "screening_entry_keys_default";
ALTER INDEX "screening_entry_keys_pkey" RENAME TO "screening_entry_keys_default_pkey";
ALTER TABLE "screening_entry_keys_default" DROP CONSTRAINT "screening_entry_keys_listVersionId_fkey";

CREATE TABLE "screening_entry_keys" (
    "listVersionId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "entryId" UUID NOT NULL,

    CONSTRAINT "screening_entry_keys_pkey" PRIMARY KEY ("listVersionId","key","entryId")
) PARTITION BY LIST ("listVersionId");

ALTER TABLE "screening_entry_keys" ADD CONSTRAINT "screening_entry_keys_listVersionId_fkey" FOREIGN KEY ("listVersionId") REFERENCES "screening_list_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "screening_entry_keys" ATTACH PARTITION "screening_entry_keys_default" DEFAULT;
