-- A verification's provider reference and hosted link are sealed under the person's data key
-- (docs/data-protection.md): a sealed value cannot be looked up, so a keyed hash of the provider
-- and the reference stands beside it, by which provider callbacks and the sandbox's hosted page
-- find the session. Rows written before are sealed and hashed by the person data migration job;
-- until then the service also finds them by the clear reference.
ALTER TABLE "kyc_sessions" ADD COLUMN "providerSessionIdHash" TEXT;

CREATE INDEX "kyc_sessions_providerSessionIdHash_idx" ON "kyc_sessions"("providerSessionIdHash");
-- Clear references not yet migrated are still found by value.
CREATE INDEX "kyc_sessions_providerSessionId_idx" ON "kyc_sessions"("providerSessionId");
