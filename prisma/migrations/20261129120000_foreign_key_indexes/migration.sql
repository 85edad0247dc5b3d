-- Deleting a parent row makes PostgreSQL find its children by the foreign key's columns; four keys
-- had no index leading with them, so each deleted row read the whole child table: a failed
-- create's pending account (services/accounts/pending-creates.ts) read every binding of every
-- organization, and an organization's deletion read every case event and comment once per case.
-- The case tables' indexes now lead with the case (every read of them names it); the bindings keep
-- their organization's index by person and get one by account and one by person.
DROP INDEX "account_bindings_orgId_accountId_idx";
CREATE INDEX "account_bindings_accountId_orgId_idx" ON "account_bindings"("accountId", "orgId");
CREATE INDEX "account_bindings_personId_idx" ON "account_bindings"("personId");
DROP INDEX "aml_case_events_orgId_caseId_seq_idx";
CREATE INDEX "aml_case_events_caseId_seq_idx" ON "aml_case_events"("caseId", seq);
DROP INDEX "aml_case_comments_orgId_caseId_createdAt_idx";
CREATE INDEX "aml_case_comments_caseId_createdAt_idx" ON "aml_case_comments"("caseId", "createdAt");
