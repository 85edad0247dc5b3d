-- CreateEnum
CREATE TYPE "ErasureStatus" AS ENUM ('scheduled', 'completed', 'withdrawn');

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "amlRetentionDays" INTEGER NOT NULL DEFAULT 1826;

-- AlterTable
ALTER TABLE "people" ADD COLUMN     "erasedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "person_keys" (
    "personId" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "keySealed" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "destroyedAt" TIMESTAMP(3),

    CONSTRAINT "person_keys_pkey" PRIMARY KEY ("personId")
);

-- CreateTable
CREATE TABLE "person_erasures" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "personId" UUID NOT NULL,
    "status" "ErasureStatus" NOT NULL DEFAULT 'scheduled',
    "requestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requestedBy" TEXT NOT NULL,
    "erasableFrom" TIMESTAMP(3),
    "heldBy" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "completedAt" TIMESTAMP(3),
    "outcome" JSONB,

    CONSTRAINT "person_erasures_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "person_keys_orgId_idx" ON "person_keys"("orgId");

-- CreateIndex
CREATE UNIQUE INDEX "person_erasures_personId_key" ON "person_erasures"("personId");

-- CreateIndex
CREATE INDEX "person_erasures_status_erasableFrom_idx" ON "person_erasures"("status", "erasableFrom");

-- AddForeignKey
ALTER TABLE "person_keys" ADD CONSTRAINT "person_keys_personId_fkey" FOREIGN KEY ("personId") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "person_erasures" ADD CONSTRAINT "person_erasures_personId_fkey" FOREIGN KEY ("personId") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;
