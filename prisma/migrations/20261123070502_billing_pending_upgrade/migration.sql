-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "checkoutUrl" TEXT;

-- CreateIndex: at most one pending upgrade per organization, so two upgrade calls (even
-- concurrent) hand out one checkout and the organization can never pay for Growth twice.
-- A partial index, which the Prisma schema cannot express; it lives here only.
CREATE UNIQUE INDEX "checkout_sessions_pending_upgrade_key" ON "checkout_sessions"("orgId") WHERE "purpose" = 'upgrade' AND "status" = 'awaiting_payment';
