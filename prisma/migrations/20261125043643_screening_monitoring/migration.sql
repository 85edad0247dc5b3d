-- CreateEnum
CREATE TYPE "ScreeningMonitorFrequency" AS ENUM ('off', 'daily', 'weekly');

-- CreateEnum
CREATE TYPE "ScreeningMonitorRunStatus" AS ENUM ('queued', 'running', 'completed', 'failed');

-- CreateTable
CREATE TABLE "screening_subjects" (
    "personId" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "querySealed" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "screening_subjects_pkey" PRIMARY KEY ("personId")
);

-- CreateTable
CREATE TABLE "screening_monitor_settings" (
    "orgId" UUID NOT NULL,
    "frequency" "ScreeningMonitorFrequency" NOT NULL DEFAULT 'off',
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "screening_monitor_settings_pkey" PRIMARY KEY ("orgId")
);

-- CreateTable
CREATE TABLE "screening_monitor_runs" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "list" TEXT,
    "listVersionId" UUID,
    "previousVersionId" UUID,
    "status" "ScreeningMonitorRunStatus" NOT NULL DEFAULT 'queued',
    "phase" TEXT NOT NULL DEFAULT 'persons',
    "cursor" TEXT,
    "changedEntries" INTEGER NOT NULL DEFAULT 0,
    "personsScreened" INTEGER NOT NULL DEFAULT 0,
    "personsSkipped" INTEGER NOT NULL DEFAULT 0,
    "accountsScreened" INTEGER NOT NULL DEFAULT 0,
    "hits" INTEGER NOT NULL DEFAULT 0,
    "casesOpened" INTEGER NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" TIMESTAMP(3),
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "screening_monitor_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "screening_subjects_orgId_personId_idx" ON "screening_subjects"("orgId", "personId");

-- CreateIndex
CREATE INDEX "screening_monitor_runs_status_createdAt_idx" ON "screening_monitor_runs"("status", "createdAt");

-- CreateIndex
CREATE INDEX "screening_monitor_runs_orgId_createdAt_idx" ON "screening_monitor_runs"("orgId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "screening_monitor_runs_orgId_dedupeKey_key" ON "screening_monitor_runs"("orgId", "dedupeKey");
