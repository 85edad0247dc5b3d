-- The binding key watch (services/accounts/key-watch.ts) reads the bindings checked longest ago
-- first, so every binding is read within bounded passes instead of only the first batch by id.
-- Bindings made before this migration were never checked by it and start at the epoch, so they are
-- read first; the column is added with that constant default (no rows rewritten), and new
-- bindings then start at the time they were bound, when the wallet proof checked their keys.

-- AlterTable
ALTER TABLE "account_bindings" ADD COLUMN     "keysCheckedAt" TIMESTAMP(3) NOT NULL DEFAULT '1970-01-01 00:00:00';
ALTER TABLE "account_bindings" ALTER COLUMN "keysCheckedAt" SET DEFAULT CURRENT_TIMESTAMP;

-- CreateIndex
CREATE INDEX "account_bindings_keysCheckedAt_id_idx" ON "account_bindings"("keysCheckedAt", "id");
