-- GET /v1/kyc/status hands an approved person their live create token (services/kyc/create-tokens.ts,
-- `liveCreateToken`), read by organization and person. With only the organization's index it read
-- every token of the organization to find the person's one (docs/performance.md, "Statistics that
-- lag"); a person's rows are also what the cascade of a person's deletion looks for.
CREATE INDEX "kyc_create_tokens_personId_createdAt_idx" ON "kyc_create_tokens"("personId", "createdAt");
