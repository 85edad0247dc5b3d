-- The people page (GET /v1/admin/people, services/people/people.ts listPeople) shows the newest
-- people of the organization, optionally of one KYC status. No index held people in that order, so
-- each page read every person of the organization and sorted them (docs/performance.md,
-- "Statistics that lag"). The organization's index by status now continues with the page's order
-- (it still serves every read by status), and one holds all of the organization's people in it.
DROP INDEX "people_orgId_kycStatus_idx";
CREATE INDEX "people_orgId_kycStatus_createdAt_id_idx" ON "people"("orgId", "kycStatus", "createdAt", id);
CREATE INDEX "people_orgId_createdAt_id_idx" ON "people"("orgId", "createdAt", id);

-- With people held in age order, a read of the people of one key, oldest or newest first (the
-- applicant id of POST /v1/aml/screen-applicant, the identity hashes of a KYC approval), could be
-- planned as a walk of all of them in age order, filtered, while the statistics still call the
-- organization small. The keyed indexes now hold each key's people in age order too, so a read of
-- one key is served by its own index alone (the names stay).
DROP INDEX "people_applicant_idx";
CREATE INDEX "people_applicant_idx" ON "people"("orgId", "applicantIdHash", "createdAt") WHERE "applicantIdHash" IS NOT NULL;
DROP INDEX "people_orgId_humanId_idx";
CREATE INDEX "people_orgId_humanId_idx" ON "people"("orgId", "humanId", "createdAt");
DROP INDEX "people_orgId_nameBirthHumanId_idx";
CREATE INDEX "people_orgId_nameBirthHumanId_idx" ON "people"("orgId", "nameBirthHumanId", "createdAt");
