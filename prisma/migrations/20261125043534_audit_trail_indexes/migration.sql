-- CreateIndex
CREATE INDEX "audit_entries_orgId_subject_seq_idx" ON "audit_entries"("orgId", "subject", "seq");

-- CreateIndex
CREATE INDEX "audit_entries_orgId_actor_seq_idx" ON "audit_entries"("orgId", "actor", "seq");
