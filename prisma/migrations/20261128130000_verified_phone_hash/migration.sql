-- A person's verified phone is sealed under their data key (docs/data-protection.md): a sealed
-- value cannot be looked up or kept unique, so a keyed hash of the organization and the number
-- stands beside it. Rows written before are hashed and sealed by the person data migration job;
-- until then the service also finds them by the clear number.
DROP INDEX "people_orgId_verifiedPhone_key";

ALTER TABLE "people" ADD COLUMN "verifiedPhoneHash" TEXT;

CREATE UNIQUE INDEX "people_orgId_verifiedPhoneHash_key" ON "people"("orgId", "verifiedPhoneHash");
-- Clear numbers not yet migrated are still found by value.
CREATE INDEX "people_orgId_verifiedPhone_idx" ON "people"("orgId", "verifiedPhone");
