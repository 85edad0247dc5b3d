-- Accounts' contacts are sealed under a data key of the account's own (docs/data-protection.md,
-- "Crypto-shredding"): a sealed value cannot be looked up or kept unique, so a keyed hash of the
-- organization and the address stands beside each (emailHash, phoneHash) and carries the
-- uniqueness per organization instead of the clear column. One-time codes and proof tokens keep
-- their address sealed and get the same hash, by which the erasure finds them. Rows written
-- before are sealed and hashed by the person data migration job; until then the service also
-- finds them by the clear value, through the plain indexes below.
--
-- Safe on a live table: the new columns are nullable without a default (no rewrite); the index
-- builds read each table once (the hash columns are all empty) while this migration's transaction
-- holds its lock; the unique indexes on the clear columns go last.
ALTER TABLE "accounts" ADD COLUMN "emailHash" TEXT,
ADD COLUMN "phoneHash" TEXT,
ADD COLUMN "dataKeySealed" TEXT;

ALTER TABLE "otp_challenges" ADD COLUMN "addressHash" TEXT;

ALTER TABLE "proof_tokens" ADD COLUMN "addressHash" TEXT;

CREATE UNIQUE INDEX "accounts_orgId_emailHash_key" ON "accounts"("orgId", "emailHash");

CREATE UNIQUE INDEX "accounts_orgId_phoneHash_key" ON "accounts"("orgId", "phoneHash");

-- Clear contacts not yet migrated are still found by value.
CREATE INDEX "accounts_orgId_email_idx" ON "accounts"("orgId", "email");

CREATE INDEX "accounts_orgId_phone_idx" ON "accounts"("orgId", "phone");

CREATE INDEX "otp_challenges_orgId_addressHash_idx" ON "otp_challenges"("orgId", "addressHash");

CREATE INDEX "proof_tokens_orgId_addressHash_idx" ON "proof_tokens"("orgId", "addressHash");

DROP INDEX "accounts_orgId_email_key";

DROP INDEX "accounts_orgId_phone_key";
