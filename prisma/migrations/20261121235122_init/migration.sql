-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('builder', 'growth', 'institutional');

-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('sandbox', 'production');

-- CreateEnum
CREATE TYPE "KybStatus" AS ENUM ('not_started', 'pending', 'in_review', 'approved', 'rejected');

-- CreateEnum
CREATE TYPE "KycStatus" AS ENUM ('not_started', 'pending', 'in_review', 'approved', 'rejected', 'retry');

-- CreateEnum
CREATE TYPE "MemberRole" AS ENUM ('viewer', 'operator', 'compliance_officer', 'admin', 'owner');

-- CreateEnum
CREATE TYPE "AccountLifecycle" AS ENUM ('provisional', 'bound', 'unlocked', 'suspended');

-- CreateEnum
CREATE TYPE "ContactChannel" AS ENUM ('email', 'phone');

-- CreateEnum
CREATE TYPE "OtpPurpose" AS ENUM ('verify', 'contact_change', 'billing_signup', 'console_login');

-- CreateEnum
CREATE TYPE "NoncePurpose" AS ENUM ('bind', 'contact_change');

-- CreateEnum
CREATE TYPE "Severity" AS ENUM ('low', 'medium', 'high', 'critical');

-- CreateEnum
CREATE TYPE "AmlCaseStatus" AS ENUM ('open', 'pending_approval', 'cleared', 'confirmed');

-- CreateEnum
CREATE TYPE "ExportStatus" AS ENUM ('queued', 'running', 'completed', 'failed');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('pending', 'failed', 'delivered', 'dead');

-- CreateEnum
CREATE TYPE "CheckoutStatus" AS ENUM ('awaiting_email', 'awaiting_payment', 'provisioned', 'sales_lead', 'expired');

-- CreateEnum
CREATE TYPE "IdempotencyState" AS ENUM ('in_progress', 'completed');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "environment" "Environment" NOT NULL DEFAULT 'sandbox',
    "plan" "Plan" NOT NULL DEFAULT 'builder',
    "kybStatus" "KybStatus" NOT NULL DEFAULT 'not_started',
    "consolePasswordHash" TEXT NOT NULL,
    "contactEmail" TEXT,
    "requireEmailProofBeforeFreeCreate" BOOLEAN NOT NULL DEFAULT false,
    "requirePhoneProofBeforeFreeCreate" BOOLEAN NOT NULL DEFAULT false,
    "requireKycBeforeFreeCreate" BOOLEAN NOT NULL DEFAULT false,
    "requireSecondApprovalToClearAml" BOOLEAN NOT NULL DEFAULT false,
    "allowedCountries" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "blockedCountries" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "ipAllowlist" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "signingEnabled" BOOLEAN NOT NULL DEFAULT false,
    "signingSecretEnc" TEXT,
    "dpaAcceptedAt" TIMESTAMP(3),
    "paymentCustomerId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "scopes" TEXT[],
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "console_members" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" "MemberRole" NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "console_members_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "people" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "kycStatus" "KycStatus" NOT NULL DEFAULT 'not_started',
    "kycLevel" TEXT NOT NULL DEFAULT 'basic-kyc',
    "kycProvider" TEXT,
    "country" TEXT,
    "pepFlag" BOOLEAN NOT NULL DEFAULT false,
    "sanctionsFlag" BOOLEAN NOT NULL DEFAULT false,
    "riskScore" INTEGER NOT NULL DEFAULT 0,
    "providerApplicantId" TEXT,
    "applicantIdHash" TEXT,
    "verifiedPhone" TEXT,
    "reviewedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "people_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "kyc_create_tokens" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "personId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "kyc_create_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "kyc_sessions" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "personId" UUID NOT NULL,
    "accountId" UUID,
    "provider" TEXT NOT NULL,
    "level" TEXT NOT NULL,
    "providerSessionId" TEXT,
    "verificationUrl" TEXT NOT NULL,
    "redirectUrl" TEXT,
    "status" "KycStatus" NOT NULL DEFAULT 'pending',
    "clientIp" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "review" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "kyc_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "kyb_sessions" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "legalName" TEXT NOT NULL,
    "registrationNumber" TEXT,
    "country" TEXT,
    "providerSessionId" TEXT,
    "status" "KybStatus" NOT NULL DEFAULT 'pending',
    "review" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "kyb_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "chain" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "did" TEXT NOT NULL,
    "lifecycle" "AccountLifecycle" NOT NULL DEFAULT 'provisional',
    "lifecycleBeforeSuspend" "AccountLifecycle",
    "ownerPublicKey" TEXT NOT NULL,
    "activePublicKey" TEXT NOT NULL,
    "passkeyCredentialId" TEXT,
    "deviceFingerprintHash" TEXT,
    "email" TEXT,
    "emailVerifiedAt" TIMESTAMP(3),
    "phone" TEXT,
    "phoneVerifiedAt" TIMESTAMP(3),
    "chainTransactionId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account_bindings" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "personId" UUID NOT NULL,
    "bindingVcHash" TEXT NOT NULL,
    "credential" JSONB NOT NULL,
    "issuerKeyId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "account_bindings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "otp_challenges" (
    "id" UUID NOT NULL,
    "orgId" UUID,
    "purpose" "OtpPurpose" NOT NULL,
    "channel" "ContactChannel" NOT NULL,
    "address" TEXT NOT NULL,
    "accountId" UUID,
    "codeHash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 5,
    "clientIp" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "consumedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "otp_challenges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "proof_tokens" (
    "id" UUID NOT NULL,
    "orgId" UUID,
    "channel" "ContactChannel" NOT NULL,
    "purpose" "OtpPurpose" NOT NULL,
    "address" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "challengeId" UUID NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "proof_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signature_nonces" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "purpose" "NoncePurpose" NOT NULL,
    "nonce" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "personId" UUID,
    "channel" "ContactChannel",
    "payloadToSign" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "consumedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signature_nonces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "screening_results" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "subjectType" TEXT NOT NULL,
    "subjectRef" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "severity" "Severity",
    "score" INTEGER NOT NULL DEFAULT 0,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "sanctionsHit" BOOLEAN NOT NULL DEFAULT false,
    "pepHit" BOOLEAN NOT NULL DEFAULT false,
    "detail" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "screening_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "aml_cases" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "subjectDid" TEXT NOT NULL,
    "personId" UUID,
    "accountId" UUID,
    "status" "AmlCaseStatus" NOT NULL DEFAULT 'open',
    "priority" "Severity" NOT NULL,
    "reason" TEXT NOT NULL,
    "openedBy" TEXT NOT NULL,
    "proposedBy" TEXT,
    "proposedAt" TIMESTAMP(3),
    "proposeReason" TEXT,
    "approvedBy" TEXT,
    "approvedAt" TIMESTAMP(3),
    "approveNotes" TEXT,
    "confirmedBy" TEXT,
    "confirmedAt" TIMESTAMP(3),
    "confirmReason" TEXT,
    "closedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "aml_cases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "risk_events" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "subjectRef" TEXT,
    "deviceFingerprintHash" TEXT,
    "clientIp" TEXT,
    "score" INTEGER NOT NULL DEFAULT 0,
    "decision" TEXT NOT NULL,
    "detail" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "risk_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_entries" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "subjectType" TEXT,
    "subject" TEXT,
    "data" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_heads" (
    "orgId" UUID NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "hash" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "audit_heads_pkey" PRIMARY KEY ("orgId")
);

-- CreateTable
CREATE TABLE "export_jobs" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "status" "ExportStatus" NOT NULL DEFAULT 'queued',
    "from" TIMESTAMP(3) NOT NULL,
    "to" TIMESTAMP(3) NOT NULL,
    "requestedBy" TEXT NOT NULL,
    "artifact" JSONB,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "export_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "secretEnc" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deactivatedAt" TIMESTAMP(3),

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatchedAt" TIMESTAMP(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "orgId" UUID NOT NULL,
    "webhookId" UUID NOT NULL,
    "eventId" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "body" TEXT,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMP(3),
    "lastError" TEXT,
    "lastStatusCode" INTEGER,
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "id" UUID NOT NULL,
    "orgId" UUID,
    "scope" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "state" "IdempotencyState" NOT NULL DEFAULT 'in_progress',
    "responseStatus" INTEGER,
    "responseBody" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_limit_windows" (
    "bucket" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY ("bucket","windowStart")
);

-- CreateTable
CREATE TABLE "used_signatures" (
    "orgId" UUID NOT NULL,
    "signature" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "used_signatures_pkey" PRIMARY KEY ("orgId","signature")
);

-- CreateTable
CREATE TABLE "checkout_sessions" (
    "id" UUID NOT NULL,
    "orgId" UUID,
    "email" TEXT NOT NULL,
    "plan" "Plan" NOT NULL,
    "organizationName" TEXT NOT NULL,
    "status" "CheckoutStatus" NOT NULL,
    "memo" TEXT,
    "amount" TEXT,
    "treasury" TEXT,
    "transactionId" TEXT,
    "paymentSessionId" TEXT,
    "revealPayloadEnc" TEXT,
    "revealedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "checkout_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dev_outbox_messages" (
    "id" UUID NOT NULL,
    "orgId" UUID,
    "channel" "ContactChannel" NOT NULL,
    "to" TEXT NOT NULL,
    "subject" TEXT,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dev_outbox_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sim_chain_accounts" (
    "name" TEXT NOT NULL,
    "ownerKeys" TEXT[],
    "activeKeys" TEXT[],
    "ownerCosigner" TEXT,
    "creator" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sim_chain_accounts_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "sim_chain_transfers" (
    "id" TEXT NOT NULL,
    "from" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "quantity" TEXT NOT NULL,
    "memo" TEXT NOT NULL,
    "irreversibleAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sim_chain_transfers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_keyHash_key" ON "api_keys"("keyHash");

-- CreateIndex
CREATE INDEX "api_keys_orgId_idx" ON "api_keys"("orgId");

-- CreateIndex
CREATE UNIQUE INDEX "console_members_orgId_email_key" ON "console_members"("orgId", "email");

-- CreateIndex
CREATE INDEX "people_orgId_kycStatus_idx" ON "people"("orgId", "kycStatus");

-- CreateIndex
CREATE UNIQUE INDEX "people_orgId_verifiedPhone_key" ON "people"("orgId", "verifiedPhone");

-- CreateIndex
CREATE UNIQUE INDEX "kyc_create_tokens_tokenHash_key" ON "kyc_create_tokens"("tokenHash");

-- CreateIndex
CREATE INDEX "kyc_create_tokens_orgId_idx" ON "kyc_create_tokens"("orgId");

-- CreateIndex
CREATE INDEX "kyc_sessions_orgId_createdAt_idx" ON "kyc_sessions"("orgId", "createdAt");

-- CreateIndex
CREATE INDEX "kyb_sessions_orgId_idx" ON "kyb_sessions"("orgId");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_did_key" ON "accounts"("did");

-- CreateIndex
CREATE INDEX "accounts_orgId_createdAt_idx" ON "accounts"("orgId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_chain_name_key" ON "accounts"("chain", "name");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_orgId_email_key" ON "accounts"("orgId", "email");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_orgId_phone_key" ON "accounts"("orgId", "phone");

-- CreateIndex
CREATE INDEX "account_bindings_orgId_accountId_idx" ON "account_bindings"("orgId", "accountId");

-- CreateIndex
CREATE INDEX "account_bindings_orgId_personId_idx" ON "account_bindings"("orgId", "personId");

-- CreateIndex
CREATE INDEX "otp_challenges_orgId_address_createdAt_idx" ON "otp_challenges"("orgId", "address", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "proof_tokens_tokenHash_key" ON "proof_tokens"("tokenHash");

-- CreateIndex
CREATE INDEX "proof_tokens_orgId_idx" ON "proof_tokens"("orgId");

-- CreateIndex
CREATE UNIQUE INDEX "signature_nonces_nonce_key" ON "signature_nonces"("nonce");

-- CreateIndex
CREATE INDEX "signature_nonces_orgId_idx" ON "signature_nonces"("orgId");

-- CreateIndex
CREATE INDEX "screening_results_orgId_subjectRef_idx" ON "screening_results"("orgId", "subjectRef");

-- CreateIndex
CREATE INDEX "aml_cases_orgId_status_idx" ON "aml_cases"("orgId", "status");

-- CreateIndex
CREATE INDEX "aml_cases_orgId_subjectDid_idx" ON "aml_cases"("orgId", "subjectDid");

-- CreateIndex
CREATE INDEX "risk_events_orgId_createdAt_idx" ON "risk_events"("orgId", "createdAt");

-- CreateIndex
CREATE INDEX "risk_events_orgId_deviceFingerprintHash_idx" ON "risk_events"("orgId", "deviceFingerprintHash");

-- CreateIndex
CREATE INDEX "audit_entries_orgId_createdAt_idx" ON "audit_entries"("orgId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "audit_entries_orgId_seq_key" ON "audit_entries"("orgId", "seq");

-- CreateIndex
CREATE INDEX "export_jobs_orgId_createdAt_idx" ON "export_jobs"("orgId", "createdAt");

-- CreateIndex
CREATE INDEX "export_jobs_status_createdAt_idx" ON "export_jobs"("status", "createdAt");

-- CreateIndex
CREATE INDEX "webhooks_orgId_idx" ON "webhooks"("orgId");

-- CreateIndex
CREATE INDEX "outbox_events_dispatchedAt_createdAt_idx" ON "outbox_events"("dispatchedAt", "createdAt");

-- CreateIndex
CREATE INDEX "outbox_events_orgId_createdAt_idx" ON "outbox_events"("orgId", "createdAt");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_nextAttemptAt_idx" ON "webhook_deliveries"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "webhook_deliveries_orgId_createdAt_idx" ON "webhook_deliveries"("orgId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhookId_eventId_key" ON "webhook_deliveries"("webhookId", "eventId");

-- CreateIndex
CREATE INDEX "idempotency_records_expiresAt_idx" ON "idempotency_records"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_records_scope_key_key" ON "idempotency_records"("scope", "key");

-- CreateIndex
CREATE INDEX "rate_limit_windows_expiresAt_idx" ON "rate_limit_windows"("expiresAt");

-- CreateIndex
CREATE INDEX "used_signatures_expiresAt_idx" ON "used_signatures"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_memo_key" ON "checkout_sessions"("memo");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_transactionId_key" ON "checkout_sessions"("transactionId");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_paymentSessionId_key" ON "checkout_sessions"("paymentSessionId");

-- CreateIndex
CREATE INDEX "checkout_sessions_email_idx" ON "checkout_sessions"("email");

-- CreateIndex
CREATE INDEX "dev_outbox_messages_to_createdAt_idx" ON "dev_outbox_messages"("to", "createdAt");

-- CreateIndex
CREATE INDEX "sim_chain_transfers_to_idx" ON "sim_chain_transfers"("to");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "console_members" ADD CONSTRAINT "console_members_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "people" ADD CONSTRAINT "people_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "kyc_create_tokens" ADD CONSTRAINT "kyc_create_tokens_personId_fkey" FOREIGN KEY ("personId") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "kyc_sessions" ADD CONSTRAINT "kyc_sessions_personId_fkey" FOREIGN KEY ("personId") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "kyb_sessions" ADD CONSTRAINT "kyb_sessions_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_bindings" ADD CONSTRAINT "account_bindings_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_bindings" ADD CONSTRAINT "account_bindings_personId_fkey" FOREIGN KEY ("personId") REFERENCES "people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "aml_cases" ADD CONSTRAINT "aml_cases_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_heads" ADD CONSTRAINT "audit_heads_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
