-- Checkout session ids become 192-bit random tokens (`cs_…`), since the id alone now reveals a
-- signup's key once (docs/security.md, "Checkout keys without the email proof"). Existing uuid ids
-- stay valid as text. The foreign key of sales leads follows the column type.

-- DropForeignKey
ALTER TABLE "sales_leads" DROP CONSTRAINT "sales_leads_sessionId_fkey";

-- AlterTable
ALTER TABLE "checkout_sessions" ALTER COLUMN "id" SET DATA TYPE TEXT;

-- AlterTable
ALTER TABLE "sales_leads" ALTER COLUMN "sessionId" SET DATA TYPE TEXT;

-- AddForeignKey
ALTER TABLE "sales_leads" ADD CONSTRAINT "sales_leads_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "checkout_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
