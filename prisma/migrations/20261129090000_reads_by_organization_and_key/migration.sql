-- Reads of one organization's rows by a key that had no index of its own: PostgreSQL went through
-- an index of the organization and filtered every row of it, a cost that grew with the tenant
-- (docs/performance.md, "Statistics that lag"). Partial where the key is often empty: a row without
-- it is never looked up by it, and costs no index write.

-- The accounts a device created, counted by every risk assessment with a device fingerprint
-- (free create, bind confirm, POST /v1/risk/assess; services/aml/risk.ts, `riskCountColumns`).
CREATE INDEX "accounts_device_idx" ON "accounts"("orgId", "deviceFingerprintHash") WHERE "deviceFingerprintHash" IS NOT NULL;

-- A person's KYC sessions, newest first (GET /v1/kyc/status?refresh=1, the access export, erasure).
CREATE INDEX "kyc_sessions_personId_createdAt_idx" ON "kyc_sessions"("personId", "createdAt");

-- An account's KYC sessions, newest first (POST /v1/kyc/start with an accountDid).
CREATE INDEX "kyc_sessions_account_idx" ON "kyc_sessions"("orgId", "accountId", "createdAt") WHERE "accountId" IS NOT NULL;

-- The people of an applicant id (POST /v1/aml/screen-applicant).
CREATE INDEX "people_applicant_idx" ON "people"("orgId", "applicantIdHash") WHERE "applicantIdHash" IS NOT NULL;
