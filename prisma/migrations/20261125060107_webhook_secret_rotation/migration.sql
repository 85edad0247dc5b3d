-- AlterTable
ALTER TABLE "webhooks" ADD COLUMN     "previousSecretEnc" TEXT,
ADD COLUMN     "previousSecretUntil" TIMESTAMP(3);
