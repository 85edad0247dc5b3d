import { randomBytes, randomUUID } from "node:crypto";
import { PrivateKey } from "@wharfkit/antelope";
import { seal } from "../crypto/secret-box";
import type { Db } from "../db/client";
import { insertApiKey } from "../services/org/api-keys";

export type FixtureContext = { db: Db; orgId: string };

/**
 * What the security suite needs to call one route as a real tenant would. Keyed by
 * "METHOD /path/template". A route with path parameters MUST have `params` here: the suite fails
 * without it, so every new parameterised route proves that another organization's record is 404.
 */
export type RouteFixture = {
  /** Creates a record in the given organization and returns the path parameters that address it. */
  params?: (ctx: FixtureContext) => Promise<Record<string, string>>;
  /** A body that would succeed, when the one derived from the zod schema would not. */
  body?: (ctx: FixtureContext, params: Record<string, string>) => unknown | Promise<unknown>;
  /** A query that would succeed, when the derived one would not. */
  query?: Record<string, string>;
};

const CHAIN_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz12345";
/** A fresh 12-character chain account name (`^[a-z1-5.]{1,12}$`). */
export const randomAccountName = () => Array.from(randomBytes(12), (b) => CHAIN_NAME_CHARS[b % CHAIN_NAME_CHARS.length]).join("");

/** A real K1 public key, as a wallet would send it. */
export const freshPublicKey = () => PrivateKey.generate("K1").toPublic().toString();

async function account({ db, orgId }: FixtureContext) {
  const name = randomAccountName();
  const key = freshPublicKey();
  return db.account.create({
    data: { orgId, chain: "sandbox", name, did: `did:antelope:sandbox:${name}`, ownerPublicKey: key, activePublicKey: key },
  });
}

async function amlCase({ db, orgId }: FixtureContext, status: "open" | "pending_approval") {
  const person = await db.person.create({ data: { orgId, kycStatus: "approved", pepFlag: true } });
  return db.amlCase.create({
    data: {
      orgId,
      personId: person.id,
      subjectDid: `did:web:localhost:people:${person.id}`,
      status,
      priority: "high",
      reason: "fixture: PEP match",
      openedBy: "system:fixture",
      ...(status === "pending_approval" ? { proposedBy: "system:fixture-proposer", proposedAt: new Date(), proposeReason: "fixture" } : {}),
    },
  });
}

async function binding(ctx: FixtureContext) {
  const bound = await account(ctx);
  await ctx.db.account.update({ where: { id: bound.id }, data: { lifecycle: "bound" } });
  const person = await ctx.db.person.create({ data: { orgId: ctx.orgId, kycStatus: "approved" } });
  return ctx.db.accountBinding.create({
    data: {
      orgId: ctx.orgId,
      accountId: bound.id,
      personId: person.id,
      bindingVcHash: "00".repeat(32),
      credential: {},
      issuerKeyId: "fixture",
    },
  });
}

/** A person never approved: nothing holds their erasure. */
const erasable = ({ db, orgId }: FixtureContext) => db.person.create({ data: { orgId, kycStatus: "rejected" } });

/** An approved person whose erasure is scheduled (held by the retention period). */
async function scheduledErasure({ db, orgId }: FixtureContext) {
  const person = await db.person.create({ data: { orgId, kycStatus: "approved", reviewedAt: new Date() } });
  await db.personErasure.create({
    data: {
      orgId,
      personId: person.id,
      requestedBy: "system:fixture",
      erasableFrom: new Date(Date.now() + 86_400_000),
      heldBy: ["aml_retention"],
    },
  });
  return person;
}

async function member({ db, orgId }: FixtureContext) {
  const email = `member-${randomUUID().slice(0, 8)}@example.com`;
  await db.consoleMember.create({ data: { orgId, email, role: "operator" } });
  return { email };
}

async function failedDelivery(ctx: FixtureContext) {
  const hook = await webhook(ctx);
  const delivery = await ctx.db.webhookDelivery.create({
    data: {
      orgId: ctx.orgId,
      webhookId: hook.id,
      eventId: randomUUID(),
      event: "account.created",
      body: JSON.stringify({ event: "account.created", payload: {} }),
      status: "failed",
      attempts: 3,
      lastError: "fixture: 500 from receiver",
    },
  });
  return { id: delivery.id };
}

async function webhook({ db, orgId }: FixtureContext) {
  return db.webhook.create({ data: { orgId, url: "https://example.com/hook", events: ["*"], secretEnc: seal("whsec_fixture") } });
}

export const routeFixtures: Record<string, RouteFixture> = {
  "POST /v1/aml/screen-applicant": { body: () => ({ applicantIdHash: "ab".repeat(32), fullName: "Fixture Applicant Person" }) },
  "POST /v1/aml/denylist": { body: () => ({ applicantIdHash: randomBytes(32).toString("hex"), reason: "fixture: known fraud" }) },
  "DELETE /v1/aml/denylist/{applicantIdHash}": {
    params: async ({ db, orgId }) => {
      const entry = await db.applicantDenylistEntry.create({
        data: { orgId, applicantIdHash: randomBytes(32).toString("hex"), reason: "fixture", addedBy: "system:fixture" },
      });
      return { applicantIdHash: entry.applicantIdHash };
    },
  },
  "POST /v1/kyb/start": {
    body: () => ({
      legalName: "Fixture Ltd",
      registrationNumber: "CS-123457",
      country: "GH",
      address: { line1: "1 Fixture Road", city: "Accra", country: "GH" },
    }),
  },
  "POST /v1/accounts/contact/email/start": {
    body: () => ({
      accountDid: "did:antelope:sandbox:fixturefixtu",
      nonce: "fixture-nonce",
      email: "fixture@example.test",
      signature: PrivateKey.generate("K1").signMessage(new TextEncoder().encode("fixture")).toString(),
    }),
  },
  "POST /v1/accounts/contact/phone/start": {
    body: () => ({
      accountDid: "did:antelope:sandbox:fixturefixtu",
      nonce: "fixture-nonce",
      phone: "+14155550100",
      signature: PrivateKey.generate("K1").signMessage(new TextEncoder().encode("fixture")).toString(),
    }),
  },
  "POST /v1/bind/confirm": {
    body: () => ({
      accountDid: "did:antelope:sandbox:fixturefixtu",
      personDid: `did:web:localhost%3A3000:people:${randomUUID()}`,
      nonce: "fixture-nonce",
      signature: PrivateKey.generate("K1").signMessage(new TextEncoder().encode("fixture")).toString(),
    }),
  },
  "POST /v1/accounts/free": { body: () => ({ ownerPublicKey: freshPublicKey() }) },
  "POST /v1/wallet/offers": {
    body: async ({ db, orgId }) => {
      const person = await db.person.create({ data: { orgId, kycStatus: "approved" } });
      return { personDid: `did:web:localhost%3A3000:people:${person.id}` };
    },
  },
  "POST /v1/wallet/presentations": { body: () => ({ claims: ["kyc_level"] }) },
  "GET /v1/wallet/presentations/{presentationId}": {
    params: async ({ db, orgId }) => {
      const row = await db.walletPresentation.create({
        data: { orgId, kind: "verify", dcqlQuery: {}, claims: ["kyc_level"], nonce: "fixture", expiresAt: new Date(Date.now() + 600_000) },
      });
      return { presentationId: row.id };
    },
  },
  "POST /v1/sandbox/chain/transfer": { body: () => ({ from: "payer.bi", to: "treasury.bi", quantity: "1.0000 EOS", memo: "fixture" }) },
  "DELETE /v1/admin/api-keys/{id}": {
    params: async ({ db, orgId }) => {
      const { key } = await db.$transaction((tx) =>
        insertApiKey(tx, orgId, { name: "fixture key", scopes: ["read"], createdBy: "system:fixture" }),
      );
      return { id: key.id };
    },
  },
  "PATCH /v1/admin/members/{email}": { params: member, body: () => ({ role: "viewer" }) },
  "DELETE /v1/admin/members/{email}": { params: member },
  "PUT /v1/admin/duplicate-policy": { body: () => ({ duplicatePersonPolicy: "refuse" }) },
  "POST /v1/claims/{action}": {
    params: async () => ({ action: "fixture-drop" }),
    body: async (ctx) => ({ accountDid: (await account(ctx)).did }),
  },
  "POST /v1/people/{personDid}/erase": { params: async (ctx) => ({ personDid: (await erasable(ctx)).id }) },
  "GET /v1/people/{personDid}/erase": { params: async (ctx) => ({ personDid: (await scheduledErasure(ctx)).id }) },
  "DELETE /v1/people/{personDid}/erase": { params: async (ctx) => ({ personDid: (await scheduledErasure(ctx)).id }) },
  "GET /v1/people/{personDid}/export": { params: async (ctx) => ({ personDid: (await erasable(ctx)).id }) },
  "PUT /v1/admin/retention": { body: () => ({ amlRetentionDays: 365, rejectedKycDays: 90 }) },
  // Enabling needs an attestation contract in the environment (409 without): the fixture changes what needs none.
  "PUT /v1/admin/attestations": { body: () => ({ publishCountry: true, validDays: 180 }) },
  "GET /v1/bindings/{id}": { params: async (ctx) => ({ id: (await binding(ctx)).id }) },
  "POST /v1/bindings/{id}/revoke": {
    params: async (ctx) => ({ id: (await binding(ctx)).id }),
    body: () => ({ reason: "fixture revocation" }),
  },
  "GET /v1/bind/sessions/{id}": {
    params: async (ctx) => {
      const acc = await account(ctx);
      const person = await ctx.db.person.create({ data: { orgId: ctx.orgId, kycStatus: "approved" } });
      const row = await ctx.db.bindSession.create({
        data: {
          orgId: ctx.orgId,
          accountId: acc.id,
          personId: person.id,
          tokenHash: randomBytes(32).toString("hex"),
          createdBy: "system:fixture",
          expiresAt: new Date(Date.now() + 3_600_000),
        },
      });
      return { id: row.id };
    },
  },
  "GET /v1/accounts/{did}": { params: async (ctx) => ({ did: (await account(ctx)).did }) },
  "GET /v1/accounts/{did}/contact": { params: async (ctx) => ({ did: (await account(ctx)).did }) },
  "POST /v1/aml/cases/{caseId}/approve-clear": {
    params: async (ctx) => ({ caseId: (await amlCase(ctx, "pending_approval")).id }),
    body: () => ({ notes: "fixture approval" }),
  },
  "POST /v1/aml/cases/{caseId}/confirm": {
    params: async (ctx) => ({ caseId: (await amlCase(ctx, "open")).id }),
    body: () => ({ reason: "fixture confirmation" }),
  },
  "POST /v1/aml/cases/{caseId}/assign": { params: async (ctx) => ({ caseId: (await amlCase(ctx, "open")).id }) },
  "POST /v1/aml/cases/{caseId}/reassign": {
    params: async (ctx) => ({ caseId: (await amlCase(ctx, "open")).id }),
    body: () => ({ assigneeEmail: "officer@example.com", reason: "fixture reassignment" }),
  },
  "POST /v1/aml/cases/{caseId}/unassign": { params: async (ctx) => ({ caseId: (await amlCase(ctx, "open")).id }) },
  "POST /v1/aml/cases/{caseId}/comments": {
    params: async (ctx) => ({ caseId: (await amlCase(ctx, "open")).id }),
    body: () => ({ text: "fixture note" }),
  },
  "GET /v1/aml/cases/{caseId}/timeline": { params: async (ctx) => ({ caseId: (await amlCase(ctx, "open")).id }) },
  "POST /v1/aml/cases/{caseId}/export": { params: async (ctx) => ({ caseId: (await amlCase(ctx, "open")).id }) },
  "POST /v1/compliance/export": {
    body: () => ({ from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date().toISOString() }),
  },
  "GET /v1/compliance/export/{jobId}": {
    params: async ({ db, orgId }) => {
      const job = await db.exportJob.create({
        data: { orgId, from: new Date(Date.now() - 86_400_000), to: new Date(), requestedBy: "system:fixture" },
      });
      return { jobId: job.id };
    },
  },
  "GET /v1/aml/monitoring/runs/{runId}": {
    params: async ({ db, orgId }) => {
      const run = await db.screeningMonitorRun.create({ data: { orgId, kind: "periodic", dedupeKey: `fixture:${randomUUID()}` } });
      return { runId: run.id };
    },
  },
  "DELETE /v1/admin/webhooks/{id}": { params: async (ctx) => ({ id: (await webhook(ctx)).id }) },
  "POST /v1/admin/webhooks/{id}/rotate-secret": {
    params: async (ctx) => ({ id: (await webhook(ctx)).id }),
    body: () => ({ overlapHours: 24 }),
  },
  "POST /v1/admin/webhooks/{id}/disable": { params: async (ctx) => ({ id: (await webhook(ctx)).id }) },
  "POST /v1/admin/webhooks/{id}/enable": { params: async (ctx) => ({ id: (await webhook(ctx)).id }) },
  "POST /v1/admin/webhooks/{id}/test": {
    params: async (ctx) => ({ id: (await webhook(ctx)).id }),
    body: () => ({ event: "account.created" }),
  },
  "POST /v1/admin/webhooks/{id}/recover": {
    params: async (ctx) => ({ id: (await webhook(ctx)).id }),
    body: () => ({ since: new Date(Date.now() - 86_400_000).toISOString() }),
  },
  "GET /v1/admin/webhooks/{id}/recover": { params: async (ctx) => ({ id: (await webhook(ctx)).id }) },
  "GET /v1/admin/webhooks/{id}/recover/{jobId}": {
    params: async (ctx) => {
      const hook = await webhook(ctx);
      const job = await ctx.db.webhookRecoverJob.create({
        data: {
          orgId: ctx.orgId,
          webhookId: hook.id,
          since: new Date(Date.now() - 86_400_000),
          until: new Date(),
          total: 0,
          requestedBy: "system:fixture",
        },
      });
      return { id: hook.id, jobId: job.id };
    },
  },
  "POST /v1/admin/webhooks/deliveries/{id}/replay": { params: failedDelivery },
  "GET /v1/admin/webhooks/deliveries/{id}/attempts": { params: failedDelivery },
};

export const fixtureKey = (method: string, path: string) => `${method} ${path}`;
