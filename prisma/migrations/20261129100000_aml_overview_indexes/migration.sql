-- The console's AML page (GET /v1/admin/aml, services/aml/overview.ts) counts and lists the
-- organization's flagged people and shows its latest AML audit entries. Through the organization's
-- indexes these read every person, and the audit log back from its newest entry until fifty AML
-- ones turned up (docs/performance.md, "Statistics that lag"). Partial: flagged people and AML
-- entries are a small part of either table, and other rows cost no index write.
CREATE INDEX "people_flagged_idx" ON "people"("orgId") WHERE "pepFlag" OR "sanctionsFlag";
CREATE INDEX "audit_entries_aml_idx" ON "audit_entries"("orgId", seq) WHERE action LIKE 'aml.%';
