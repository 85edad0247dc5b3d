-- AlterTable
ALTER TABLE "aml_case_hits" ADD COLUMN     "evidence" JSONB,
ADD COLUMN     "searchText" TEXT;

-- AlterTable
ALTER TABLE "aml_cases" ADD COLUMN     "assignedAt" TIMESTAMP(3),
ADD COLUMN     "assigneeEmail" TEXT,
ADD COLUMN     "dueAt" TIMESTAMP(3),
ADD COLUMN     "overdueNotifiedAt" TIMESTAMP(3),
ADD COLUMN     "proposedAssignee" TEXT;

-- CreateTable
CREATE TABLE "aml_case_events" (
    "id" UUID NOT NULL,
    "seq" SERIAL NOT NULL,
    "orgId" UUID NOT NULL,
    "caseId" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "data" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "aml_case_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "aml_case_comments" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "caseId" UUID NOT NULL,
    "author" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "aml_case_comments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "aml_sla_settings" (
    "orgId" UUID NOT NULL,
    "criticalHours" INTEGER NOT NULL,
    "highHours" INTEGER NOT NULL,
    "mediumHours" INTEGER NOT NULL,
    "lowHours" INTEGER NOT NULL,
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "aml_sla_settings_pkey" PRIMARY KEY ("orgId")
);

-- CreateIndex
CREATE INDEX "aml_case_events_orgId_caseId_seq_idx" ON "aml_case_events"("orgId", "caseId", "seq");

-- CreateIndex
CREATE INDEX "aml_case_comments_orgId_caseId_createdAt_idx" ON "aml_case_comments"("orgId", "caseId", "createdAt");

-- CreateIndex
CREATE INDEX "aml_cases_orgId_assigneeEmail_idx" ON "aml_cases"("orgId", "assigneeEmail");

-- AddForeignKey
ALTER TABLE "aml_case_events" ADD CONSTRAINT "aml_case_events_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "aml_cases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "aml_case_comments" ADD CONSTRAINT "aml_case_comments_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "aml_cases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: the overdue job reads only cases still open whose email has not gone out.
CREATE INDEX "aml_cases_overdue_idx" ON "aml_cases"("dueAt") WHERE "overdueNotifiedAt" IS NULL AND "status" IN ('open', 'pending_approval');

-- Hand-written: a comment is at most 4000 characters, SLA hours are positive.
ALTER TABLE "aml_case_comments" ADD CONSTRAINT "aml_case_comments_body_check" CHECK (char_length("body") BETWEEN 1 AND 4000);
ALTER TABLE "aml_sla_settings" ADD CONSTRAINT "aml_sla_settings_hours_check"
  CHECK ("criticalHours" BETWEEN 1 AND 8760 AND "highHours" BETWEEN 1 AND 8760 AND "mediumHours" BETWEEN 1 AND 8760 AND "lowHours" BETWEEN 1 AND 8760);
