-- CreateTable
CREATE TABLE "wallet_offers" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "personId" UUID NOT NULL,
    "accountId" UUID,
    "preAuthCodeHash" TEXT NOT NULL,
    "txCodeHash" TEXT NOT NULL,
    "txCodeAttempts" INTEGER NOT NULL DEFAULT 0,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "redeemedAt" TIMESTAMP(3),
    "accessTokenHash" TEXT,
    "accessTokenExpiresAt" TIMESTAMP(3),
    "cNonceHash" TEXT,
    "issuedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_offers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "wallet_offers_preAuthCodeHash_key" ON "wallet_offers"("preAuthCodeHash");

-- CreateIndex
CREATE UNIQUE INDEX "wallet_offers_accessTokenHash_key" ON "wallet_offers"("accessTokenHash");

-- CreateIndex
CREATE INDEX "wallet_offers_orgId_personId_idx" ON "wallet_offers"("orgId", "personId");
