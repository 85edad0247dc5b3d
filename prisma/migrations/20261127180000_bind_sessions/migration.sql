-- Hosted bind page (docs/api/guides/binding.md, "Hosted bind page"): one row per session a tenant asks
-- for, and the session each challenge nonce was handed out by. New table and a nullable column:
-- nothing existing is rewritten.

-- AlterTable
ALTER TABLE "signature_nonces" ADD COLUMN     "bindSessionId" UUID;

-- CreateTable
CREATE TABLE "bind_sessions" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "personId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "redirectUrl" TEXT,
    "createdBy" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bind_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "bind_sessions_tokenHash_key" ON "bind_sessions"("tokenHash");

-- CreateIndex
CREATE INDEX "bind_sessions_orgId_createdAt_idx" ON "bind_sessions"("orgId", "createdAt");

-- CreateIndex
CREATE INDEX "bind_sessions_accountId_idx" ON "bind_sessions"("accountId");

-- CreateIndex
CREATE INDEX "bind_sessions_personId_idx" ON "bind_sessions"("personId");

-- CreateIndex
CREATE INDEX "signature_nonces_bindSessionId_idx" ON "signature_nonces"("bindSessionId");

-- AddForeignKey
ALTER TABLE "bind_sessions" ADD CONSTRAINT "bind_sessions_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bind_sessions" ADD CONSTRAINT "bind_sessions_personId_fkey" FOREIGN KEY ("personId") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;
