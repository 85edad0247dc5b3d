-- AlterTable
ALTER TABLE "console_members" ADD COLUMN     "passwordHash" TEXT,
ADD COLUMN     "totpLastStep" INTEGER,
ADD COLUMN     "totpSecret" TEXT;

-- CreateTable
CREATE TABLE "console_invitations" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "memberId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "invitedBy" TEXT NOT NULL,
    "pendingTotp" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "console_invitations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "console_passkeys" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "memberId" UUID NOT NULL,
    "credentialId" TEXT NOT NULL,
    "publicKey" BYTEA NOT NULL,
    "counter" BIGINT NOT NULL DEFAULT 0,
    "transports" TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),

    CONSTRAINT "console_passkeys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "console_auth_challenges" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "challenge" TEXT NOT NULL,
    "subject" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "console_auth_challenges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "console_sessions" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "memberId" UUID,
    "email" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "userAgent" TEXT,
    "clientIp" TEXT,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "console_invitations_memberId_key" ON "console_invitations"("memberId");

-- CreateIndex
CREATE UNIQUE INDEX "console_invitations_tokenHash_key" ON "console_invitations"("tokenHash");

-- CreateIndex
CREATE INDEX "console_invitations_orgId_idx" ON "console_invitations"("orgId");

-- CreateIndex
CREATE UNIQUE INDEX "console_passkeys_credentialId_key" ON "console_passkeys"("credentialId");

-- CreateIndex
CREATE INDEX "console_passkeys_memberId_idx" ON "console_passkeys"("memberId");

-- CreateIndex
CREATE UNIQUE INDEX "console_auth_challenges_challenge_key" ON "console_auth_challenges"("challenge");

-- CreateIndex
CREATE INDEX "console_auth_challenges_expiresAt_idx" ON "console_auth_challenges"("expiresAt");

-- CreateIndex
CREATE INDEX "console_sessions_orgId_email_idx" ON "console_sessions"("orgId", "email");

-- CreateIndex
CREATE INDEX "console_sessions_memberId_idx" ON "console_sessions"("memberId");

-- AddForeignKey
ALTER TABLE "console_invitations" ADD CONSTRAINT "console_invitations_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "console_members"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "console_passkeys" ADD CONSTRAINT "console_passkeys_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "console_members"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_memberId_fkey" FOREIGN KEY ("memberId") REFERENCES "console_members"("id") ON DELETE CASCADE ON UPDATE CASCADE;
