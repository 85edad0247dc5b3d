-- A claim's token (src/server/platform/work-queue.ts): set at each claim, required by every
-- renew and end of it, cleared when the claim ends. Nullable and without a default, so adding
-- it rewrites no rows.

-- AlterTable
ALTER TABLE "export_jobs" ADD COLUMN     "leaseToken" UUID;

-- AlterTable
ALTER TABLE "screening_monitor_runs" ADD COLUMN     "leaseToken" UUID;

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "leaseToken" UUID;

-- AlterTable
ALTER TABLE "webhook_recover_jobs" ADD COLUMN     "leaseToken" UUID;
