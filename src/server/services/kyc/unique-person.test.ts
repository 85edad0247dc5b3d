import { randomBytes } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { resetIdentityHashKeys } from "../../crypto/identity-hash";
import { getDb } from "../../db/client";
import { veriffProvider } from "../../providers/kyc/veriff";
import { walletKey } from "../../testing/factories";
import { startFakeVeriff } from "../../testing/fake-veriff";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { verifyWithDigitalBazaar } from "../../testing/independent-vc-verifier";
import { type Instance, startInstance, stopInstance } from "../../testing/instance";
import { bindWithWallet } from "../../testing/kyc-flow";
import { fakeSumsubForKyc } from "../../testing/sumsub-kyc";

// One person, one account (docs/api/guides/unique-person.md): the same identity document makes
// the same human, flagged (or refused) as a duplicate in one organization, with one pairwise id
// there and an unrelated one elsewhere, kept across a rotation of the hashing key; a name and
// birth date alone only flag; and one claim per human, whichever account claims.

type Api = ReturnType<typeof client>;

/** A sandbox verification with the test passport `documentNumber`, and its status. */
async function sandboxPerson(api: Api, documentNumber?: string) {
  const started = await api.post("/v1/kyc/start", {});
  expect(started.status, started.text).toBe(200);
  const done = await api.post("/v1/sandbox/kyc/complete", {
    personDid: started.body.personDid,
    outcome: "approved",
    ...(documentNumber ? { documentNumber } : {}),
  });
  expect(done.status, done.text).toBe(200);
  const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`);
  expect(status.body.status).toBe("approved");
  return { personDid: started.body.personDid as string, status: status.body };
}

/** A bound account of the person (their create token, their wallet's signature). */
async function boundAccountOf(api: Api, p: { personDid: string; status: { createToken: string } }) {
  const wallet = walletKey();
  const created = await api.post("/v1/accounts/free", {
    ownerPublicKey: wallet.publicKey,
    kycCreateToken: p.status.createToken,
    personDid: p.personDid,
  });
  expect(created.status, created.text).toBe(201);
  const accountDid = created.body.accountDid as string;
  return { accountDid, credential: await bindWithWallet(api, { accountDid, personDid: p.personDid, privateKey: wallet.privateKey }) };
}

const passport = () => `P${randomBytes(5).toString("hex").toUpperCase()}`;

afterEach(() => {
  delete process.env.BI_IDENTITY_HASH_KEYS;
  resetEnvCache();
  resetIdentityHashKeys();
});

describe("the same identity document", () => {
  it("is one human in an organization (flagged, one pairwise id), another id elsewhere, and refused a create token under refuse", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const doc = passport();
    const a = await createTestOrg({ plan: "institutional" });
    const apiA = client(url, a.apiKey);
    const first = await sandboxPerson(apiA, doc);
    const second = await sandboxPerson(apiA, doc);
    expect(first.status.duplicateOf).toBeUndefined();
    expect(second.status).toMatchObject({ duplicateOf: "document", pairwiseId: first.status.pairwiseId });
    expect(second.status.pairwiseId).toMatch(/^pw_[0-9a-f]{40}$/);
    // Flagged, so the second still gets a token under the default policy.
    expect(second.status.createToken).toMatch(/^kct_/);
    const event = await db.outboxEvent.findFirstOrThrow({ where: { orgId: a.orgId, event: "kyc.duplicate_person" } });
    expect(event.payload).toEqual({
      personDid: second.personDid,
      match: "document",
      otherPersonDids: [first.personDid],
      createRefused: false,
    });
    // Another person without a document is someone else.
    const third = await sandboxPerson(apiA);
    expect(third.status.duplicateOf).toBeUndefined();
    expect(third.status.pairwiseId).not.toBe(first.status.pairwiseId);

    // The same document in another organization: an unrelated pairwise id, no duplicate there.
    const b = await createTestOrg({ plan: "institutional" });
    const apiB = client(url, b.apiKey);
    const elsewhere = await sandboxPerson(apiB, doc);
    expect(elsewhere.status.duplicateOf).toBeUndefined();
    expect(elsewhere.status.pairwiseId).not.toBe(first.status.pairwiseId);

    // Under refuse, a duplicate gets no create token.
    expect((await apiB.put("/v1/admin/duplicate-policy", { duplicatePersonPolicy: "refuse" })).body).toEqual({
      duplicatePersonPolicy: "refuse",
    });
    const refused = await sandboxPerson(apiB, doc);
    expect(refused.status).toMatchObject({ duplicateOf: "document", createRefused: true, pairwiseId: elsewhere.status.pairwiseId });
    expect(refused.status.createToken).toBeUndefined();
    const refusedEvent = await db.outboxEvent.findFirstOrThrow({ where: { orgId: b.orgId, event: "kyc.duplicate_person" } });
    expect(refusedEvent.payload).toMatchObject({ createRefused: true });
    // Nothing about the document is stored but keyed hashes.
    const stored =
      JSON.stringify(await db.identityHash.findMany()) +
      JSON.stringify(await db.person.findMany({ where: { orgId: { in: [a.orgId, b.orgId] } } }));
    expect(stored).not.toContain(doc);
  }, 60_000);

  it("keeps its pairwise ids when the hashing key is rotated", async () => {
    const { url } = await testServer();
    const doc = passport();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const before = await sandboxPerson(api, doc);
    // A new key in front of the old one: found through the old, written under both.
    process.env.BI_IDENTITY_HASH_KEYS = `k2:${randomBytes(32).toString("base64")},h0`;
    resetEnvCache();
    resetIdentityHashKeys();
    const during = await sandboxPerson(api, doc);
    expect(during.status).toMatchObject({ duplicateOf: "document", pairwiseId: before.status.pairwiseId });
    // The old key retired: the new key's hashes alone find the same human.
    process.env.BI_IDENTITY_HASH_KEYS = process.env.BI_IDENTITY_HASH_KEYS.split(",")[0]!;
    resetEnvCache();
    resetIdentityHashKeys();
    const after = await sandboxPerson(api, doc);
    expect(after.status).toMatchObject({ duplicateOf: "document", pairwiseId: before.status.pairwiseId });
    // A start-up with a malformed key list is refused, naming the setting.
    const { parseEnv } = await import("@/env");
    expect(() => parseEnv({ BI_IDENTITY_HASH_KEYS: "k3:not-a-key" })).toThrow(/BI_IDENTITY_HASH_KEYS/);
  }, 60_000);
});

describe("documents as the providers report them", () => {
  const fakeSumsub = fakeSumsubForKyc();

  /** A Sumsub verification whose applicant data carries `info` as Sumsub's applicant data does, with `idDocs`. */
  async function sumsubPerson(url: string, api: Api, info: Record<string, unknown>) {
    const started = await api.post("/v1/kyc/start", {});
    const personId = (started.body.personDid as string).split(":").pop()!;
    const applicant = [...fakeSumsub().applicants.values()].find((x) => x.externalUserId === personId)!;
    fakeSumsub().review(applicant.id, { answer: "GREEN", info: info as never });
    expect(await fakeSumsub().send(`${url}/v1/kyc/callbacks/sumsub`, fakeSumsub().reviewedCallback(applicant.id))).toBe(200);
    return (await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`)).body;
  }

  it("reads Sumsub's info.idDocs: the same passport is the same human; the same name and birth date only flag, never refuse", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    expect((await api.put("/v1/admin/duplicate-policy", { duplicatePersonPolicy: "refuse" })).status).toBe(200);
    const number = passport();
    const person = (first: string, docNumber: string) => ({
      firstName: first,
      lastName: "Asantewaa",
      dob: "1994-07-19",
      country: "GHA",
      nationality: "GHA",
      idDocs: [
        { idDocType: "SELFIE", country: "GHA" },
        {
          idDocType: "PASSPORT",
          country: "GHA",
          number: docNumber,
          firstName: first,
          lastName: "Asantewaa",
          dob: "1994-07-19",
          validUntil: "2031-01-01",
        },
      ],
    });
    const one = await sumsubPerson(url, api, person("Yaa", number));
    // The same passport, its number as printed with spaces.
    const two = await sumsubPerson(url, api, person("Yaa", `${number.slice(0, 4)} ${number.slice(4)}`));
    expect(two).toMatchObject({ duplicateOf: "document", pairwiseId: one.pairwiseId, createRefused: true });
    // Twins on paper with another passport: flagged for review, and handed a token all the same.
    const twin = await sumsubPerson(url, api, person("Yaa", passport()));
    expect(twin).toMatchObject({ duplicateOf: "name_birth" });
    expect(twin.pairwiseId).not.toBe(one.pairwiseId);
    expect(twin.createToken).toMatch(/^kct_/);
    expect(twin.createRefused).toBeUndefined();
  }, 60_000);

  it("reads Veriff's decision webhook: the document's number, type and country, and the nationality", async () => {
    const veriff = await startFakeVeriff();
    try {
      const provider = veriffProvider({ apiKey: veriff.apiKey, sharedSecret: veriff.sharedSecret, apiUrl: veriff.url, timeoutMs: 2000 });
      const externalId = crypto.randomUUID();
      const session = await provider.startKyc({ externalId, levelName: "basic-kyc", publicUrl: "http://localhost:3000" });
      veriff.decide(session.applicantId, {
        status: "approved",
        person: { firstName: "KWAME", lastName: "MENSAH", dateOfBirth: "1988-02-14", nationality: "GH" },
        documentCountry: "GH",
        documentNumber: "G1234567",
      });
      const webhook = veriff.decisionWebhook(session.applicantId);
      const verified = provider.verifyCallback(webhook.rawBody, webhook.headers);
      expect(verified).toMatchObject({
        kind: "kyc_review",
        review: { externalId, identity: { nationality: "GH", document: { country: "GH", type: "PASSPORT", number: "G1234567" } } },
      });
    } finally {
      await veriff.close();
    }
  });
});

describe("one claim per human", () => {
  let other: Instance | undefined;
  afterAll(() => stopInstance(other));

  it("20 concurrent claims of one action by two accounts of one human, over two instances: one succeeds, the rest 409 already_claimed", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    const doc = passport();
    // One human, verified twice (two people with one passport), each with a bound account.
    const a = await boundAccountOf(api, await sandboxPerson(api, doc));
    const b = await boundAccountOf(api, await sandboxPerson(api, doc));
    const someoneElse = await boundAccountOf(api, await sandboxPerson(api, passport()));
    // The credential carries the pairwise id and still verifies independently.
    expect(a.credential.credentialSubject.pairwiseId).toMatch(/^pw_/);
    expect(a.credential.credentialSubject.pairwiseId).toBe(b.credential.credentialSubject.pairwiseId);
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    expect((await verifyWithDigitalBazaar(a.credential, issuer)).verified).toBe(true);

    other = await startInstance();
    const bases = [url, other.base];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client(bases[i % 2]!, org.apiKey).post("/v1/claims/airdrop-2026-06", { accountDid: [a, b][Math.floor(i / 2) % 2]!.accountDid }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    const seen = JSON.stringify(answers.map((r, i) => [i % 2 ? "other" : "first", r.status, r.body?.error?.code, r.body?.error?.details]));
    expect(
      statuses.filter((s) => s === 201),
      seen,
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 409),
      seen,
    ).toHaveLength(19);
    for (const r of answers.filter((x) => x.status === 409)) expect(r.body.error.details.reason).toBe("already_claimed");
    const db = await getDb();
    expect(await db.claim.count({ where: { orgId: org.orgId, action: "airdrop-2026-06" } })).toBe(1);
    // The claim row holds a nullifier, not the person or the account.
    const row = await db.claim.findFirstOrThrow({ where: { orgId: org.orgId } });
    expect(JSON.stringify(row)).not.toMatch(/did:|people/);
    // Another human, and another action, claim freely.
    expect((await api.post("/v1/claims/airdrop-2026-06", { accountDid: someoneElse.accountDid })).status).toBe(201);
    expect((await api.post("/v1/claims/vote-42", { accountDid: b.accountDid })).status).toBe(201);
  }, 120_000);
});
