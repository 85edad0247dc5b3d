-- AlterTable
ALTER TABLE "screening_list_versions" ADD COLUMN     "orgId" UUID;

-- CreateIndex
CREATE INDEX "screening_list_versions_orgId_importedAt_idx" ON "screening_list_versions"("orgId", "importedAt");

-- AddForeignKey
ALTER TABLE "screening_list_versions" ADD CONSTRAINT "screening_list_versions_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One active version per list and owner (global lists have no owner): an organization's own list may share a name with another organization's.
DROP INDEX "screening_list_versions_one_active_key";
CREATE UNIQUE INDEX "screening_list_versions_one_active_key" ON "screening_list_versions"("list", (coalesce("orgId", '00000000-0000-0000-0000-000000000000'::uuid))) WHERE "active";
