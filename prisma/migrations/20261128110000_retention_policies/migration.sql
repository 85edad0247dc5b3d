-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "closedRelationshipDays" INTEGER,
ADD COLUMN     "contactOnlyDays" INTEGER,
ADD COLUMN     "rejectedKycDays" INTEGER;
