-- CreateEnum
CREATE TYPE "BindingStatus" AS ENUM ('active', 'suspended', 'revoked');

-- CreateEnum
CREATE TYPE "StatusPurpose" AS ENUM ('revocation', 'suspension');

-- AlterTable
ALTER TABLE "account_bindings" ADD COLUMN     "revocationReason" TEXT,
ADD COLUMN     "revokedBy" TEXT,
ADD COLUMN     "signingKey" TEXT,
ADD COLUMN     "signingPermissions" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "status" "BindingStatus" NOT NULL DEFAULT 'active',
ADD COLUMN     "statusChangedAt" TIMESTAMP(3),
ADD COLUMN     "suspendedFor" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Bindings revoked before status existed (none are expected) keep their meaning.
UPDATE "account_bindings" SET "status" = 'revoked' WHERE "revokedAt" IS NOT NULL;

-- CreateTable
CREATE TABLE "status_lists" (
    "id" UUID NOT NULL,
    "purpose" "StatusPurpose" NOT NULL,
    "size" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_lists_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credential_status_entries" (
    "listId" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "purpose" "StatusPurpose" NOT NULL,
    "bindingId" UUID,
    "set" BOOLEAN NOT NULL DEFAULT false,
    "changedAt" TIMESTAMP(3),

    CONSTRAINT "credential_status_entries_pkey" PRIMARY KEY ("listId","index")
);

-- CreateIndex
CREATE INDEX "status_lists_purpose_createdAt_idx" ON "status_lists"("purpose", "createdAt");

-- CreateIndex
CREATE INDEX "credential_status_entries_listId_changedAt_idx" ON "credential_status_entries"("listId", "changedAt");

-- CreateIndex
CREATE UNIQUE INDEX "credential_status_entries_bindingId_purpose_key" ON "credential_status_entries"("bindingId", "purpose");

-- AddForeignKey
ALTER TABLE "credential_status_entries" ADD CONSTRAINT "credential_status_entries_listId_fkey" FOREIGN KEY ("listId") REFERENCES "status_lists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credential_status_entries" ADD CONSTRAINT "credential_status_entries_bindingId_fkey" FOREIGN KEY ("bindingId") REFERENCES "account_bindings"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- A list is at least the spec's minimum size, and a position lies inside its list.
ALTER TABLE "status_lists" ADD CONSTRAINT "status_lists_size_min" CHECK ("size" >= 131072);
ALTER TABLE "credential_status_entries" ADD CONSTRAINT "credential_status_entries_index_range" CHECK ("index" >= 0);
