-- CreateEnum
CREATE TYPE "WebhookRecoverState" AS ENUM ('queued', 'running', 'completed');

-- CreateTable
CREATE TABLE "webhook_recover_jobs" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "webhookId" UUID NOT NULL,
    "since" TIMESTAMP(3) NOT NULL,
    "until" TIMESTAMP(3) NOT NULL,
    "untilRequested" TIMESTAMP(3),
    "state" "WebhookRecoverState" NOT NULL DEFAULT 'queued',
    "total" INTEGER NOT NULL,
    "done" INTEGER NOT NULL DEFAULT 0,
    "delivered" INTEGER NOT NULL DEFAULT 0,
    "cursorEventAt" TIMESTAMP(3),
    "cursorId" UUID,
    "requestedBy" TEXT NOT NULL,
    "claims" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "webhook_recover_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_recover_jobs_webhookId_createdAt_idx" ON "webhook_recover_jobs"("webhookId", "createdAt");

-- CreateIndex
CREATE INDEX "webhook_recover_jobs_state_createdAt_idx" ON "webhook_recover_jobs"("state", "createdAt");

-- AddForeignKey
ALTER TABLE "webhook_recover_jobs" ADD CONSTRAINT "webhook_recover_jobs_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhookId_createdAt_idx" ON "webhook_deliveries"("webhookId", "createdAt");

-- AlterTable: the time of the event, from the outbox while it still holds the event
ALTER TABLE "webhook_deliveries" ADD COLUMN "eventAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "webhook_deliveries" SET "eventAt" = "createdAt";
UPDATE "webhook_deliveries" d SET "eventAt" = o."createdAt" AT TIME ZONE 'UTC' FROM "outbox_events" o WHERE o."id" = d."eventId";
