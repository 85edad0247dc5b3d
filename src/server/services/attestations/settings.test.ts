// An organization's opt-in to on-chain attestations over HTTP (GET and PUT /v1/admin/attestations,
// docs/api/guides/onchain.md, "Publishing from the service"): the defaults, enabling refused on a
// deployment without a contract with nothing written, and every change marking each bound account
// of the organization (and no other organization's) for the worker, with one audit entry.
import { PrivateKey } from "@wharfkit/antelope";
import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "../../db/client";
import { type client as apiClient, client, createTestOrg, testServer } from "../../testing/harness";
import { accountReadyToBind, boundAccount } from "../../testing/kyc-flow";
import { appendAudit } from "../audit";

type Api = ReturnType<typeof apiClient>;

const ATTESTATION_ENV = {
  ATTESTATION_CONTRACT: "bindattest",
  ATTESTATION_ISSUER: "bindissuer",
  ATTESTATION_PRIVATE_KEY: PrivateKey.generate("K1").toString(),
  CHAIN_API_URL: "http://127.0.0.1:9",
};

/**
 * Runs `fn` on a deployment with an attestation contract. CHAIN_API_URL also takes the service off
 * the simulated chain, so accounts are created and bound outside, and the variables go again after.
 */
async function withContract<T>(fn: () => Promise<T>): Promise<T> {
  Object.assign(process.env, ATTESTATION_ENV);
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(ATTESTATION_ENV)) delete process.env[k];
  }
}

afterEach(() => {
  for (const k of Object.keys(ATTESTATION_ENV)) delete process.env[k];
});

const DEFAULTS = {
  enabled: false,
  publishCountry: false,
  validDays: 365,
  orgNumber: null,
  contract: null,
  issuer: null,
  pending: 0,
  lastPublishedAt: null,
};

async function accountIdOf(db: Db, accountDid: string) {
  return (await db.account.findFirstOrThrow({ where: { did: accountDid }, select: { id: true } })).id;
}

/** The organization's marks: account id to whether it waits for the worker. */
async function marks(db: Db, orgId: string): Promise<Map<string, boolean>> {
  const rows = await db.attestationSync.findMany({ where: { orgId } });
  return new Map(rows.map((r) => [r.accountId, r.dirtyAt !== null]));
}

/** What the worker leaves behind: every mark of the organization cleared, published at `at`. */
const publishedAll = (db: Db, orgId: string, at: Date) =>
  db.attestationSync.updateMany({ where: { orgId }, data: { dirtyAt: null, publishedAt: at, lastActions: ["issue"] } });

const settingsEntries = (db: Db, orgId: string) =>
  db.auditEntry.findMany({ where: { orgId, action: "attestations.settings_changed" }, orderBy: { seq: "asc" } });

/** Two bound accounts (one binding revoked since) and one account never bound. */
async function accountsOf(url: string, api: Api, db: Db) {
  const active = await boundAccount(url, api);
  const revoked = await boundAccount(url, api);
  const binding = await db.accountBinding.findFirstOrThrow({ where: { account: { did: revoked.accountDid } } });
  const revoke = await api.post(`/v1/bindings/${binding.id}/revoke`, { reason: "The account was sold" });
  expect(revoke.status, revoke.text).toBe(200);
  const unbound = await accountReadyToBind(url, api);
  return {
    bound: [await accountIdOf(db, active.accountDid), await accountIdOf(db, revoked.accountDid)].sort(),
    unbound: await accountIdOf(db, unbound.accountDid),
  };
}

describe("GET and PUT /v1/admin/attestations", () => {
  it("answers the defaults before any PUT: off, no number, no contract, nothing pending", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).get("/v1/admin/attestations");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual(DEFAULTS);
  });

  it("refuses enabling on a deployment without a contract with 409 attestations_not_configured, and writes nothing", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    await boundAccount(url, api);
    for (const body of [{ enabled: true }, { enabled: true, validDays: 30 }]) {
      const res = await api.put("/v1/admin/attestations", body);
      expect(res.status, res.text).toBe(409);
      expect(res.body.error.details.reason).toBe("attestations_not_configured");
      expect(res.body.error.message).toBe("This deployment has no attestation contract configured (ATTESTATION_CONTRACT).");
    }
    expect(await db.attestationSetting.findUnique({ where: { orgId: org.orgId } })).toBeNull();
    expect(await db.attestationSync.count({ where: { orgId: org.orgId } })).toBe(0);
    expect(await settingsEntries(db, org.orgId)).toHaveLength(0);
    expect((await api.get("/v1/admin/attestations")).body).toStrictEqual(DEFAULTS);
  });

  it("enabling marks every account with a binding, revoked ones included, of that organization only, in one audit entry", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { bound, unbound } = await accountsOf(url, api, db);
    const other = await createTestOrg({ plan: "institutional" });
    const otherApi = client(url, other.apiKey);
    const otherAccount = await accountIdOf(db, (await boundAccount(url, otherApi)).accountDid);
    const otherBefore = await otherApi.put("/v1/admin/attestations", { validDays: 90 });
    expect(otherBefore.status, otherBefore.text).toBe(200);

    const res = await withContract(() => api.put("/v1/admin/attestations", { enabled: true, publishCountry: true }));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      enabled: true,
      publishCountry: true,
      validDays: 365,
      orgNumber: expect.stringMatching(/^[1-9][0-9]*$/),
      contract: "bindattest",
      issuer: "bindissuer@attest",
      pending: 2,
      lastPublishedAt: null,
    });
    const m = await marks(db, org.orgId);
    expect([...m.keys()].sort()).toEqual(bound);
    expect([...m.values()]).toEqual([true, true]);
    expect(m.has(unbound)).toBe(false);
    // The other organization: its settings as it left them, its account not marked, its own number.
    const otherNow = await otherApi.get("/v1/admin/attestations");
    expect(otherNow.body).toStrictEqual({ ...DEFAULTS, validDays: 90, orgNumber: otherBefore.body.orgNumber });
    expect(otherNow.body.orgNumber).toMatch(/^[1-9][0-9]*$/);
    expect(otherNow.body.orgNumber).not.toBe(res.body.orgNumber);
    expect(await db.attestationSync.findUnique({ where: { accountId: otherAccount } })).toBeNull();

    const [entry, ...more] = await settingsEntries(db, org.orgId);
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({
      subjectType: "organization",
      subject: org.orgId,
      data: { before: { enabled: false, publishCountry: false }, after: { enabled: true, publishCountry: true }, accounts: 2 },
    });
    const audit = await api.get("/v1/admin/audit?limit=5");
    expect(audit.body.entries[0]).toMatchObject({
      action: "attestations.settings_changed",
      summary: expect.stringMatching(/ turned on-chain attestations on \(publishCountry false to true\)$/),
    });
    // The configuration is read afresh: without the contract the answer says so, the settings stay.
    expect((await api.get("/v1/admin/attestations")).body).toMatchObject({ enabled: true, contract: null, issuer: null, pending: 2 });
  });

  it("disabling marks them again before the row says off; a PUT that changes nothing marks nothing and writes no entry", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const { bound } = await accountsOf(url, api, db);
    expect((await withContract(() => api.put("/v1/admin/attestations", { enabled: true }))).status).toBe(200);
    const publishedAt = new Date("2026-03-09T14:02:11.000Z");
    await publishedAll(db, org.orgId, publishedAt);
    expect((await api.get("/v1/admin/attestations")).body).toMatchObject({ pending: 0, lastPublishedAt: publishedAt.toISOString() });

    // The same value again: nothing changes, nothing is marked, no entry.
    const same = await withContract(() => api.put("/v1/admin/attestations", { enabled: true, validDays: 365 }));
    expect(same.status, same.text).toBe(200);
    expect(same.body.pending).toBe(0);
    expect(await settingsEntries(db, org.orgId)).toHaveLength(1);

    // Another validity while enabled: every row has a new expiry to publish.
    const shorter = await withContract(() => api.put("/v1/admin/attestations", { validDays: 30 }));
    expect(shorter.body).toMatchObject({ enabled: true, validDays: 30, pending: 2 });
    await publishedAll(db, org.orgId, publishedAt);

    // Disabling needs no contract; the worker removes the rows of the accounts it marks.
    const off = await api.put("/v1/admin/attestations", { enabled: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, validDays: 30, pending: 2, lastPublishedAt: publishedAt.toISOString() });
    const m = await marks(db, org.orgId);
    expect([...m.keys()].sort()).toEqual(bound);
    expect([...m.values()]).toEqual([true, true]);
    const entries = await settingsEntries(db, org.orgId);
    expect(entries.map((e) => e.data)).toEqual([
      { before: { enabled: false }, after: { enabled: true }, accounts: 2 },
      { before: { validDays: 365 }, after: { validDays: 30 }, accounts: 2 },
      { before: { enabled: true }, after: { enabled: false }, accounts: 2 },
    ]);
    const audit = await api.get("/v1/admin/audit?limit=2");
    expect(audit.body.entries.map((e: { summary: string }) => e.summary.replace(/^.* (turned|changed) /, "$1 "))).toEqual([
      "turned on-chain attestations off",
      "changed the on-chain attestation settings (validDays 365 to 30)",
    ]);

    // While off, a change is kept and marks nothing (the marker writes only for a publishing organization).
    await publishedAll(db, org.orgId, publishedAt);
    const whileOff = await api.put("/v1/admin/attestations", { publishCountry: true });
    expect(whileOff.body).toMatchObject({ enabled: false, publishCountry: true, pending: 0 });
  });

  it("reads the worker's attestation.published entry in words", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    await db.$transaction((tx) =>
      appendAudit(
        tx,
        { orgId: org.orgId, actor: "system:attestations" },
        {
          action: "attestation.published",
          subjectType: "account",
          subject: "did:antelope:sandbox:quietalice1",
          data: { actions: ["revoke"], status: "revoked", transactionId: "ab".repeat(32) },
        },
      ),
    );
    const audit = await client(url, org.apiKey).get("/v1/admin/audit?limit=1");
    expect(audit.body.entries[0].summary).toBe("The attestation publisher published the attestation of account quietalice1 (revoked)");
  });

  it("refuses bad input with 400 naming the field, and unknown or missing fields", async () => {
    const { url, db } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    const cases: [unknown, RegExp][] = [
      [{ validDays: 0 }, /^body\.validDays$/],
      [{ validDays: 3651 }, /^body\.validDays$/],
      [{ validDays: 1.5 }, /^body\.validDays$/],
      [{ enabled: "yes" }, /^body\.enabled$/],
      [{ publishCountry: null }, /^body\.publishCountry$/],
      [{ colour: "red" }, /^body$/],
      [{}, /^body$/],
    ];
    for (const [body, path] of cases) {
      const res = await api.put("/v1/admin/attestations", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(
        res.body.error.details.issues.some((i: { path: string }) => path.test(i.path)),
        res.text,
      ).toBe(true);
    }
    expect(await db.attestationSetting.findUnique({ where: { orgId: org.orgId } })).toBeNull();
    // The edges are accepted.
    expect((await api.put("/v1/admin/attestations", { validDays: 1 })).body.validDays).toBe(1);
    expect((await api.put("/v1/admin/attestations", { validDays: 3650 })).body.validDays).toBe(3650);
  });
});
