-- AlterTable
ALTER TABLE "webhooks" ADD COLUMN     "disabledAt" TIMESTAMP(3),
ADD COLUMN     "disabledReason" TEXT,
ADD COLUMN     "failingNoticeAt" TIMESTAMP(3),
ADD COLUMN     "failingSince" TIMESTAMP(3),
ADD COLUMN     "lastSuccessAt" TIMESTAMP(3);
