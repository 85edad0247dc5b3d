-- CreateEnum
CREATE TYPE "ScreeningListFormat" AS ENUM ('ftm', 'ofac', 'labels');

-- CreateTable
CREATE TABLE "screening_list_versions" (
    "id" UUID NOT NULL,
    "list" TEXT NOT NULL,
    "format" "ScreeningListFormat" NOT NULL,
    "fileHashes" TEXT[],
    "versionHash" TEXT NOT NULL,
    "entryCount" INTEGER NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT false,
    "importedBy" TEXT NOT NULL,
    "importedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activatedAt" TIMESTAMP(3),

    CONSTRAINT "screening_list_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "screening_entries" (
    "id" UUID NOT NULL,
    "listVersionId" UUID NOT NULL,
    "externalId" TEXT NOT NULL,
    "schema" TEXT NOT NULL DEFAULT 'Person',
    "name" TEXT NOT NULL,
    "aliases" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "normalizedNames" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "nameKeys" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "birthDates" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "countries" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "topics" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "programme" TEXT,

    CONSTRAINT "screening_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "screening_account_labels" (
    "id" UUID NOT NULL,
    "listVersionId" UUID NOT NULL,
    "chainAccount" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "score" INTEGER NOT NULL,

    CONSTRAINT "screening_account_labels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "applicant_denylist" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "applicantIdHash" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "addedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "applicant_denylist_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "screening_list_versions_list_importedAt_idx" ON "screening_list_versions"("list", "importedAt");

-- CreateIndex
CREATE INDEX "screening_entries_nameKeys_idx" ON "screening_entries" USING GIN ("nameKeys" array_ops);

-- CreateIndex
CREATE UNIQUE INDEX "screening_entries_listVersionId_externalId_key" ON "screening_entries"("listVersionId", "externalId");

-- CreateIndex
CREATE INDEX "screening_account_labels_chainAccount_idx" ON "screening_account_labels"("chainAccount");

-- CreateIndex
CREATE UNIQUE INDEX "screening_account_labels_listVersionId_chainAccount_key" ON "screening_account_labels"("listVersionId", "chainAccount");

-- CreateIndex
CREATE UNIQUE INDEX "applicant_denylist_orgId_applicantIdHash_key" ON "applicant_denylist"("orgId", "applicantIdHash");

-- AddForeignKey
ALTER TABLE "screening_entries" ADD CONSTRAINT "screening_entries_listVersionId_fkey" FOREIGN KEY ("listVersionId") REFERENCES "screening_list_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "screening_account_labels" ADD CONSTRAINT "screening_account_labels_listVersionId_fkey" FOREIGN KEY ("listVersionId") REFERENCES "screening_list_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One active version per list (written by hand: Prisma does not model partial indexes). The
-- import flips the old version off and the new one on in one transaction, so screening always
-- sees exactly one whole version of each list.
CREATE UNIQUE INDEX "screening_list_versions_one_active_key" ON "screening_list_versions"("list") WHERE "active";
