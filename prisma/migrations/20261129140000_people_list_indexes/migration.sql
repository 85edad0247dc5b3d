-- The people page (GET /v1/admin/people, services/people/people.ts listPeople) shows the newest
-- people of the organization, optionally of one KYC status. No index held people in that order, so
-- each page read every person of the organization and sorted them (docs/performance.md,
-- "Statistics that lag"). The organization's index by status now continues with the page's order
-- (it still serves every read by status), and one holds all of the organization's people in it.
DROP INDEX "people_orgId_kycStatus_idx";
CREATE INDEX "people_orgId_kycStatus_createdAt_id_idx" ON "people"("orgId", "kycStatus", "createdAt", id);
CREATE INDEX "people_orgId_createdAt_id_idx" ON "people"("orgId", "createdAt", id);
