-- Erasing a person blanks their risk events (services/people/erasure.ts), found by organization and
-- subject: through the organization's indexes that read every risk event of the organization (one
-- per free create, bind and assessment) for each person erased (docs/performance.md, "Statistics
-- that lag").
CREATE INDEX "risk_events_orgId_subjectRef_idx" ON "risk_events"("orgId", "subjectRef");
