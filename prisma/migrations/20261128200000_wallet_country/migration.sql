-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "walletCredentialCountry" BOOLEAN NOT NULL DEFAULT false;
