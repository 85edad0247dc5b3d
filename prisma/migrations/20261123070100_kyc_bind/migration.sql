-- AlterTable
ALTER TABLE "kyc_create_tokens" ADD COLUMN "tokenEnc" TEXT;

-- AlterTable
ALTER TABLE "kyb_sessions" ADD COLUMN "address" JSONB,
ADD COLUMN "level" TEXT,
ADD COLUMN "verificationUrl" TEXT;

-- CreateTable
CREATE TABLE "provider_events" (
    "id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "orgId" UUID,
    "kind" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "provider_events_provider_eventId_key" ON "provider_events"("provider", "eventId");

-- An account has at most one active binding: concurrent confirms of different nonces bind once.
CREATE UNIQUE INDEX "account_bindings_one_active" ON "account_bindings"("accountId") WHERE "revokedAt" IS NULL;
