-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "duplicatePersonPolicy" TEXT NOT NULL DEFAULT 'flag';

-- AlterTable
ALTER TABLE "people" ADD COLUMN     "duplicateOf" TEXT,
ADD COLUMN     "duplicatePersonIds" UUID[] DEFAULT ARRAY[]::UUID[],
ADD COLUMN     "humanId" UUID,
ADD COLUMN     "nameBirthHumanId" UUID,
ADD COLUMN     "pairwiseId" TEXT;

-- CreateTable
CREATE TABLE "identity_hashes" (
    "keyId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "humanId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identity_hashes_pkey" PRIMARY KEY ("keyId","hash")
);

-- CreateTable
CREATE TABLE "claims" (
    "orgId" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "nullifier" TEXT NOT NULL,
    "claimedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "claims_pkey" PRIMARY KEY ("orgId","action","nullifier")
);

-- CreateIndex
CREATE INDEX "identity_hashes_humanId_idx" ON "identity_hashes"("humanId");

-- CreateIndex
CREATE INDEX "people_orgId_humanId_idx" ON "people"("orgId", "humanId");

-- CreateIndex
CREATE INDEX "people_orgId_nameBirthHumanId_idx" ON "people"("orgId", "nameBirthHumanId");
