-- CreateEnum
CREATE TYPE "CheckoutPurpose" AS ENUM ('signup', 'upgrade');

-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "paymentCustomerId" TEXT,
ADD COLUMN     "paymentSubscriptionId" TEXT,
ADD COLUMN     "proofTokenId" UUID,
ADD COLUMN     "provisionedAt" TIMESTAMP(3),
ADD COLUMN     "purpose" "CheckoutPurpose" NOT NULL DEFAULT 'signup';

-- CreateTable
CREATE TABLE "payment_events" (
    "provider" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "processedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_events_pkey" PRIMARY KEY ("provider","eventId")
);

-- CreateTable
CREATE TABLE "sales_leads" (
    "id" UUID NOT NULL,
    "sessionId" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "organizationName" TEXT NOT NULL,
    "expectedMonthlyVerifications" INTEGER,
    "message" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sales_leads_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_proofTokenId_key" ON "checkout_sessions"("proofTokenId");

-- CreateIndex
CREATE UNIQUE INDEX "sales_leads_sessionId_key" ON "sales_leads"("sessionId");

-- AddForeignKey
ALTER TABLE "sales_leads" ADD CONSTRAINT "sales_leads_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "checkout_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
