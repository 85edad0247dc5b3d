-- The AML case list (GET /v1/aml/cases and the console's queue tabs, services/aml/cases.ts
-- casePage) reads a page of a tab in the tab's order. Through the organization's indexes it read
-- every case of the tab and sorted them (docs/performance.md, "Statistics that lag"). One index per
-- order: the queue (open and pending, a small part of the cases once an organization has worked a
-- while) by priority then age; closed cases newest first (the table's CHECK sets closedAt exactly
-- for closed cases); every case in the queue's order.
CREATE INDEX "aml_cases_queue_idx" ON "aml_cases"("orgId", priority DESC, "createdAt", id) WHERE status IN ('open', 'pending_approval');
CREATE INDEX "aml_cases_closed_idx" ON "aml_cases"("orgId", "closedAt" DESC, id) WHERE "closedAt" IS NOT NULL;
CREATE INDEX "aml_cases_order_idx" ON "aml_cases"("orgId", priority DESC, "createdAt", id);
