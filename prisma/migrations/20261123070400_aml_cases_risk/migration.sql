-- CreateTable
CREATE TABLE "aml_case_hits" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "caseId" UUID NOT NULL,
    "resultId" TEXT,
    "severity" "Severity" NOT NULL,
    "sanctions" BOOLEAN NOT NULL DEFAULT false,
    "pep" BOOLEAN NOT NULL DEFAULT false,
    "score" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "aml_case_hits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "aml_case_hits_orgId_caseId_idx" ON "aml_case_hits"("orgId", "caseId");

-- Four-eyes, enforced by the database as well as the service (written by hand: Prisma does not
-- model CHECK constraints and leaves them alone when diffing): an approval needs a proposal, and
-- the approver is never the proposer.
ALTER TABLE "aml_cases" ADD CONSTRAINT "aml_cases_four_eyes_check"
    CHECK ("approvedBy" IS NULL OR ("proposedBy" IS NOT NULL AND "approvedBy" <> "proposedBy"));

-- A case is closed (cleared or confirmed) exactly when it has a closing time; a case awaiting
-- approval always names its proposer.
ALTER TABLE "aml_cases" ADD CONSTRAINT "aml_cases_closed_check"
    CHECK ((status IN ('cleared', 'confirmed')) = ("closedAt" IS NOT NULL));
ALTER TABLE "aml_cases" ADD CONSTRAINT "aml_cases_pending_check"
    CHECK (status <> 'pending_approval' OR "proposedBy" IS NOT NULL);
