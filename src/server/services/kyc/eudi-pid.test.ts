import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { digest, generateSalt } from "@sd-jwt/crypto-nodejs";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetKycConfigCache } from "../../providers/kyc";
import { pidTrustListFromEnv } from "../../providers/kyc/eudi-wallet";
import { SANDBOX_IDENTITIES } from "../../providers/kyc/sandbox";
import { accountRow } from "../../testing/factories";
import { call, client, createTestOrg, testServer } from "../../testing/harness";
import { applicantOf } from "../../testing/kyc-flow";
import { type Holder, newHolder, type PresentOptions, present, resolveRequest } from "../../testing/wallet-holder";
import { walletRequestUri } from "../wallet/presentations";
import { PID_CLAIMS, SANDBOX_PID_ISSUER, sandboxPidIssuer } from "./eudi-pid";

/**
 * The EU digital identity wallet as a KYC provider: POST /v1/kyc/start {provider: eudi_wallet}
 * makes a presentation request for the person's PID, the test wallet (testing/wallet-holder.ts)
 * presents a PID minted here as a Member State's issuer would (the sandbox's test issuer, whose
 * key comes from a published seed), and the approval takes the path of every provider's.
 */
const SETTINGS = ["KYC_PROVIDERS", "EUDI_PID_TRUST_LIST", "EUDI_PID_SANDBOX_ISSUER"] as const;
const saved: Record<string, string | undefined> = {};
let url: string;

beforeAll(async () => {
  for (const k of SETTINGS) saved[k] = process.env[k];
  process.env.KYC_PROVIDERS = "sandbox,eudi_wallet";
  delete process.env.EUDI_PID_TRUST_LIST;
  delete process.env.EUDI_PID_SANDBOX_ISSUER;
  resetKycConfigCache();
  url = (await testServer()).url;
});
afterAll(() => {
  for (const k of SETTINGS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetKycConfigCache();
});

type Issuer = { issuer: string; kid: string; privateKey: KeyObject };
type PidPerson = { family_name: string; given_name: string; birthdate: string; nationalities: string[] };

const ERIKA: PidPerson = { family_name: "Mustermann", given_name: "Erika", birthdate: "1964-08-12", nationalities: ["DE"] };

/** A PID (SD-JWT VC, vct urn:eudi:pid:1) as a PID issuer mints it, every claim selectively disclosable, bound to the holder's key. */
async function mintPid(holder: Holder, opts: { issuer?: Issuer; person?: PidPerson; exp?: number; omit?: string[] } = {}) {
  const issuer = opts.issuer ?? sandboxPidIssuer();
  const now = Math.floor(Date.now() / 1000);
  const person = opts.person ?? ERIKA;
  const claims: Record<string, unknown> = { ...person, address: { country: person.nationalities[0] }, issuing_country: "DE" };
  for (const name of opts.omit ?? []) delete claims[name];
  const instance = new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: generateSalt,
    signAlg: "EdDSA",
    signer: async (data: string) => sign(null, Buffer.from(data), issuer.privateKey).toString("base64url"),
  });
  return instance.issue(
    {
      iss: issuer.issuer,
      iat: now,
      exp: opts.exp ?? now + 90 * 24 * 3600,
      vct: "urn:eudi:pid:1",
      cnf: { jwk: holder.publicJwk },
      ...claims,
    } as never,
    { _sd: Object.keys(claims), ...("address" in claims ? { address: { _sd: ["country"] } } : {}) } as never,
    { header: { kid: issuer.kid } },
  );
}

async function setup() {
  const { db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { db, org, api: client(url, org.apiKey) };
}

async function startPid(api: ReturnType<typeof client>, extra: Record<string, unknown> = {}) {
  const started = await api.post("/v1/kyc/start", { provider: "eudi_wallet", ...extra });
  expect(started.status, started.text).toBe(200);
  const id = applicantOf(started.body.verificationUrl);
  const personDid = started.body.personDid as string;
  return { id, personDid, personId: personDid.split(":").pop()!, body: started.body };
}

const answer = async (id: string, holder: Holder, pid: string, opts?: PresentOptions) =>
  present(await resolveRequest(url, walletRequestUri(id)), holder, pid, opts);

const statusOf = async (api: ReturnType<typeof client>, personDid: string) =>
  (await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`)).body;

describe("EU digital identity wallet PID as identity verification", () => {
  it("approves the person from a sandbox PID: screened, audited, and no PID value stored", async () => {
    const { db, org, api } = await setup();
    const { id, personDid, personId, body } = await startPid(api);
    expect(body).toMatchObject({ provider: "eudi_wallet", accessToken: "" });
    expect(body.verificationUrl).toBe(`${process.env.BI_PUBLIC_URL}/wallet/present/${id}`);
    const row = await db.walletPresentation.findUniqueOrThrow({ where: { id } });
    const session = await db.kycSession.findFirstOrThrow({ where: { personId } });
    expect(row).toMatchObject({ kind: "kyc_pid", orgId: org.orgId, kycSessionId: session.id, claims: [...PID_CLAIMS], status: "pending" });
    expect(session.provider).toBe("eudi_wallet");

    const holder = await newHolder();
    const wallet = await resolveRequest(url, walletRequestUri(id));
    const payload = wallet.resolved.authorizationRequestPayload as { dcql_query: { credentials: { meta: unknown }[] } };
    expect(payload.dcql_query.credentials[0]!.meta).toEqual({ vct_values: ["urn:eudi:pid:1"] });
    const res = await present(wallet, holder, await mintPid(holder));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ redirect_uri: `${process.env.BI_PUBLIC_URL}/wallet/present/${id}` });

    expect(await statusOf(api, personDid)).toMatchObject({
      status: "approved",
      provider: "eudi_wallet",
      country: "DE",
      sanctionsFlag: false,
      pepFlag: false,
      applicantIdHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // Screened at approval, as any provider's approval: a result for the person and the subject kept (sealed) for re-screening.
    const results = await db.screeningResult.findMany({ where: { orgId: org.orgId, subjectRef: personDid } });
    expect(results.length).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => !r.sanctionsHit && !r.pepHit)).toBe(true);
    expect(await db.screeningSubject.count({ where: { personId } })).toBe(1);
    expect(await db.outboxEvent.count({ where: { orgId: org.orgId, event: "kyc.approved" } })).toBe(1);
    const approval = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "kyc.approved", subject: personDid } });
    expect(approval.actor).toBe("system:eudi-wallet");
    expect(approval.data).toMatchObject({ provider: "eudi_wallet", sessionId: session.id, country: "DE", previousStatus: "pending" });

    // No PID value in clear: not in the presentation, the session, the person or the audit trail.
    const after = await db.walletPresentation.findUniqueOrThrow({ where: { id } });
    expect(after).toMatchObject({ status: "verified", resultSealed: null, refusal: null });
    const raw = [
      ...(await db.$queryRaw<{ j: string }[]>`SELECT row_to_json(w)::text AS j FROM wallet_presentations w WHERE id = ${id}::uuid`),
      ...(await db.$queryRaw<{ j: string }[]>`SELECT row_to_json(s)::text AS j FROM kyc_sessions s WHERE "personId" = ${personId}::uuid`),
      ...(await db.$queryRaw<{ j: string }[]>`SELECT row_to_json(p)::text AS j FROM people p WHERE id = ${personId}::uuid`),
      ...(await db.$queryRaw<{ j: string }[]>`SELECT row_to_json(a)::text AS j FROM audit_entries a WHERE "orgId" = ${org.orgId}::uuid`),
      ...(await db.$queryRaw<
        { j: string }[]
      >`SELECT row_to_json(r)::text AS j FROM screening_results r WHERE "orgId" = ${org.orgId}::uuid`),
    ]
      .map((r) => r.j)
      .join("\n");
    expect(raw).toContain(personId);
    for (const value of ["Mustermann", "Erika", "1964-08-12", "1964"]) expect(raw).not.toContain(value);

    // Answered once.
    expect((await answer(id, holder, await mintPid(holder)).catch(() => ({ status: 400 }))).status).toBe(400);
  });

  it("refuses a PID from an issuer not on the trust list; the person stays pending and the same account's person can start again", async () => {
    const { db, org, api } = await setup();
    const account = await accountRow(db, org.orgId);
    const { id, personDid } = await startPid(api, { accountDid: account.did });
    const holder = await newHolder();
    const { privateKey } = generateKeyPairSync("ed25519");
    const rogue: Issuer = { issuer: "https://pid-issuer.untrusted.example", kid: "rogue-1", privateKey };
    const res = await answer(id, holder, await mintPid(holder, { issuer: rogue }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "access_denied" });
    expect(await db.walletPresentation.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "refused",
      refusal: "untrusted_issuer",
    });
    expect((await statusOf(api, personDid)).status).toBe("pending");
    // The sandbox issuer's name with another key is no better.
    const impostor: Issuer = { issuer: SANDBOX_PID_ISSUER, kid: sandboxPidIssuer().kid, privateKey };
    const second = await startPid(api, { accountDid: account.did });
    expect(second.personDid).toBe(personDid);
    expect((await answer(second.id, holder, await mintPid(holder, { issuer: impostor }))).status).toBe(400);
    expect((await db.walletPresentation.findUniqueOrThrow({ where: { id: second.id } })).refusal).toBe("invalid_signature");

    // A new session for the same person, then a PID from the trusted issuer: approved.
    const retry = await startPid(api, { accountDid: account.did });
    expect(retry.personDid).toBe(personDid);
    expect((await answer(retry.id, holder, await mintPid(holder))).status).toBe(200);
    expect((await statusOf(api, personDid)).status).toBe("approved");
    expect(await db.kycSession.count({ where: { personId: retry.personId } })).toBe(3);
  });

  it("refuses an expired PID (expired) and a PID without the birth date, undisclosed or absent (claims_missing)", async () => {
    const { db, api } = await setup();
    const holder = await newHolder();
    const past = Math.floor(Date.now() / 1000) - 60;
    const without = ["family_name", "given_name", "nationalities"];
    const cases: [string, string, PresentOptions | undefined][] = [
      ["expired", await mintPid(holder, { exp: past }), undefined],
      ["claims_missing", await mintPid(holder), { disclose: without }],
      ["claims_missing", await mintPid(holder, { omit: ["birthdate"] }), { disclose: without }],
    ];
    for (const [refusal, pid, opts] of cases) {
      const { id, personDid } = await startPid(api);
      const res = await answer(id, holder, pid, opts);
      expect(res.status, refusal).toBe(400);
      expect(await db.walletPresentation.findUniqueOrThrow({ where: { id } }), refusal).toMatchObject({ status: "refused", refusal });
      expect((await statusOf(api, personDid)).status, refusal).toBe("pending");
    }
  });

  it("screens a PID naming the sandbox sanctions person like any approval: the sandbox's sanctions flag, critical AML case, aml.sanctions_hit and risk", async () => {
    const { db, org, api } = await setup();
    const { fullName, birthDate, country } = SANDBOX_IDENTITIES.sanctions;
    const [given, middle, family] = fullName!.split(" ");
    const person: PidPerson = { given_name: `${given} ${middle}`, family_name: family!, birthdate: birthDate!, nationalities: [country!] };
    const { id, personDid, personId } = await startPid(api);
    const holder = await newHolder();
    expect((await answer(id, holder, await mintPid(holder, { person }))).status).toBe(200);

    // The sandbox provider's sanctions outcome, for comparison: its own finding (rejected, labelled SANCTIONS) and the same screening hit.
    const sandbox = await api.post("/v1/kyc/start", {});
    const hosted = await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantOf(sandbox.body.verificationUrl)}`, {
      body: { outcome: "sanctions" },
    });
    expect(hosted.status, hosted.text).toBe(200);
    const viaSandbox = await statusOf(api, sandbox.body.personDid);
    expect(viaSandbox).toMatchObject({ status: "rejected", sanctionsFlag: true });

    // The wallet has no finding of its own (the PID only proves who the person is): our screening's hit is the outcome.
    const viaWallet = await statusOf(api, personDid);
    expect(viaWallet).toMatchObject({ status: "approved", provider: "eudi_wallet", country: "UA", sanctionsFlag: true });
    expect(viaWallet.riskScore).toBe(viaSandbox.riskScore);
    // The flag holds the person as for any approval our screening flags: no wallet credential (and no binding, aml_hold).
    const offer = await api.post("/v1/wallet/offers", { personDid });
    expect(offer.status, offer.text).toBe(409);
    expect(offer.body.error.details.reason).toBe("person_flagged");
    const cases = await db.amlCase.findMany({ where: { orgId: org.orgId }, orderBy: { createdAt: "asc" } });
    const walletCase = cases.find((c) => c.personId === personId);
    const sandboxCase = cases.find((c) => c.subjectDid === sandbox.body.personDid);
    expect(walletCase).toMatchObject({ priority: "critical", status: "open" });
    expect(sandboxCase?.priority).toBe(walletCase?.priority);
    const hits = await db.outboxEvent.findMany({ where: { orgId: org.orgId, event: "aml.sanctions_hit" } });
    expect(hits.map((h) => (h.payload as { personDid: string }).personDid).sort()).toEqual([personDid, sandbox.body.personDid].sort());
    const screened = await db.screeningResult.findFirstOrThrow({ where: { orgId: org.orgId, subjectRef: personDid } });
    expect(screened.sanctionsHit).toBe(true);
  });

  it("answers 409 provider_not_configured, in the envelope, when KYC_PROVIDERS does not name eudi_wallet", async () => {
    const { db, org, api } = await setup();
    process.env.KYC_PROVIDERS = "sandbox";
    resetKycConfigCache();
    try {
      const before = await db.kycSession.count({ where: { orgId: org.orgId } });
      const res = await api.post("/v1/kyc/start", { provider: "eudi_wallet" });
      expect(res.status, res.text).toBe(409);
      expect(res.body.error).toMatchObject({ code: "CONFLICT", details: { reason: "provider_not_configured" } });
      expect(res.body.error.message).toContain("eudi_wallet");
      expect(await db.kycSession.count({ where: { orgId: org.orgId } })).toBe(before);
      // Without `provider`, as before: the configured providers in failover order.
      const plain = await api.post("/v1/kyc/start", {});
      expect(plain.status).toBe(200);
      expect(plain.body.provider).toBe("sandbox");
      expect((await api.post("/v1/kyc/start", { provider: "veriff_plus" })).status).toBe(400);
    } finally {
      process.env.KYC_PROVIDERS = "sandbox,eudi_wallet";
      resetKycConfigCache();
    }
  });

  it("trusts the issuers of EUDI_PID_TRUST_LIST, and the sandbox issuer only with the sandbox provider", async () => {
    const { db, api } = await setup();
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const member: Issuer = { issuer: "https://pid.member-state.example", kid: "ms-1", privateKey };
    const jwk = { ...publicKey.export({ format: "jwk" }), kid: "ms-1" };
    process.env.KYC_PROVIDERS = "eudi_wallet";
    process.env.EUDI_PID_TRUST_LIST = JSON.stringify([{ issuer: member.issuer, jwks: { keys: [jwk] } }]);
    resetKycConfigCache();
    try {
      const holder = await newHolder();
      const fromSandbox = await startPid(api);
      expect((await answer(fromSandbox.id, holder, await mintPid(holder))).status).toBe(400);
      expect((await db.walletPresentation.findUniqueOrThrow({ where: { id: fromSandbox.id } })).refusal).toBe("untrusted_issuer");
      const fromMember = await startPid(api);
      expect((await answer(fromMember.id, holder, await mintPid(holder, { issuer: member }))).status).toBe(200);
      expect((await statusOf(api, fromMember.personDid)).status).toBe("approved");
      // Without `provider`, the failover order alone picks the wallet.
      expect((await api.post("/v1/kyc/start", {})).body.provider).toBe("eudi_wallet");
    } finally {
      process.env.KYC_PROVIDERS = "sandbox,eudi_wallet";
      delete process.env.EUDI_PID_TRUST_LIST;
      resetKycConfigCache();
    }
  });

  it("refuses a bad EUDI_PID_TRUST_LIST naming the variable and the fault, never the value", () => {
    const secretish = "https://pid.example/not-a-list-AAAA";
    const problems = (source: Record<string, string>, environment: "sandbox" | "production" = "sandbox") => {
      try {
        pidTrustListFromEnv(source, ["eudi_wallet"], environment);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error("expected an invalid configuration");
    };
    const notJson = problems({ EUDI_PID_TRUST_LIST: secretish });
    expect(notJson).toContain("EUDI_PID_TRUST_LIST: is not JSON");
    expect(notJson).not.toContain(secretish);
    const privateJwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
    const withPrivate = problems({
      EUDI_PID_TRUST_LIST: JSON.stringify([{ issuer: "https://pid.example", jwks: { keys: [privateJwk] } }]),
    });
    expect(withPrivate).toContain("public keys only");
    expect(withPrivate).not.toContain(String(privateJwk.d));
    expect(problems({ EUDI_PID_TRUST_LIST: JSON.stringify([{ issuer: "http://pid.example", jwks: { keys: [] } }]) })).toMatch(
      /EUDI_PID_TRUST_LIST: at 0\.issuer: .*\n.*EUDI_PID_TRUST_LIST: at 0\.jwks\.keys/,
    );
    expect(problems({ EUDI_PID_SANDBOX_ISSUER: "1" }, "production")).toContain(
      "EUDI_PID_SANDBOX_ISSUER: is refused when BI_ENV=production",
    );
    // The sandbox test issuer: with the sandbox provider or EUDI_PID_SANDBOX_ISSUER=1, never in production.
    expect(pidTrustListFromEnv({}, ["eudi_wallet"], "sandbox")).toEqual([]);
    expect(pidTrustListFromEnv({}, ["sandbox", "eudi_wallet"], "sandbox").map((e) => e.issuer)).toEqual([SANDBOX_PID_ISSUER]);
    expect(pidTrustListFromEnv({ EUDI_PID_SANDBOX_ISSUER: "1" }, ["eudi_wallet"], "sandbox").map((e) => e.issuer)).toEqual([
      SANDBOX_PID_ISSUER,
    ]);
    expect(pidTrustListFromEnv({}, ["sandbox", "eudi_wallet"], "production")).toEqual([]);
    // The published seed gives the same key every time.
    expect(sandboxPidIssuer().publicJwk).toEqual(sandboxPidIssuer().publicJwk);
  });
});
