-- Presentations from people's wallets (OpenID4VP 1.0) and the issued credential's hash on its offer.
-- wallet_offers.credentialHash is new and empty: no existing row can collide on its unique index.
-- AlterTable
ALTER TABLE "wallet_offers" ADD COLUMN     "credentialHash" TEXT;

-- CreateTable
CREATE TABLE "wallet_presentations" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "dcqlQuery" JSONB NOT NULL,
    "claims" TEXT[],
    "purpose" TEXT,
    "accountDid" TEXT,
    "nonce" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "refusal" TEXT,
    "resultSealed" TEXT,
    "sourceOrgId" UUID,
    "kycSessionId" UUID,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "respondedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_presentations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "wallet_presentations_kycSessionId_key" ON "wallet_presentations"("kycSessionId");

-- CreateIndex
CREATE INDEX "wallet_presentations_orgId_createdAt_idx" ON "wallet_presentations"("orgId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "wallet_offers_credentialHash_key" ON "wallet_offers"("credentialHash");
