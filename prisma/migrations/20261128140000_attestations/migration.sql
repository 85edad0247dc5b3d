-- CreateTable
CREATE TABLE "attestation_settings" (
    "orgId" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "publishCountry" BOOLEAN NOT NULL DEFAULT false,
    "validDays" INTEGER NOT NULL DEFAULT 365,
    "orgNumber" BIGSERIAL NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "attestation_settings_pkey" PRIMARY KEY ("orgId")
);

-- CreateTable
CREATE TABLE "attestation_sync" (
    "accountId" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "dirtyAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "lastError" TEXT,
    "publishedAt" TIMESTAMP(3),
    "lastActions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "transactionId" TEXT,

    CONSTRAINT "attestation_sync_pkey" PRIMARY KEY ("accountId")
);

-- CreateIndex
CREATE UNIQUE INDEX "attestation_settings_orgNumber_key" ON "attestation_settings"("orgNumber");

-- CreateIndex
CREATE INDEX "attestation_sync_dirtyAt_idx" ON "attestation_sync"("dirtyAt");

-- CreateIndex
CREATE INDEX "attestation_sync_orgId_idx" ON "attestation_sync"("orgId");
