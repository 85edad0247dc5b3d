-- A person's open case (services/aml/case-records.ts, `openCaseOf`; the re-screen's read of a
-- batch's hits, services/screening/monitoring-record.ts) is looked up by organization and person.
-- Without this index PostgreSQL read every case of the organization to find it, so each hit cost
-- in proportion to the organization's cases: a re-screen of a million people opening 20,624 cases
-- spent 31 s in that read (docs/performance.md, "Screening at list sizes").
CREATE INDEX "aml_cases_orgId_personId_idx" ON "aml_cases"("orgId", "personId");
