-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "paymentSubscriptionEventAt" TIMESTAMP(3),
ADD COLUMN     "paymentSubscriptionId" TEXT;

-- Backfill: an organization is paid for by the subscription of the checkout that last settled
-- its plan (a later chain or sandbox settlement has none, so it stays NULL). Without this,
-- organizations that paid by card before this migration would ignore every event of their own
-- subscription. The time of the last applied event stays NULL: the next event is applied.
UPDATE "organizations" AS o
SET "paymentSubscriptionId" = (
  SELECT c."paymentSubscriptionId"
  FROM "checkout_sessions" AS c
  WHERE c."orgId" = o."id" AND c."status" = 'provisioned'
  ORDER BY c."provisionedAt" DESC NULLS LAST, c."createdAt" DESC
  LIMIT 1
)
WHERE o."paymentCustomerId" IS NOT NULL;
