import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openContact, openContacts } from "@/server/crypto/account-box";
import { openPersonal } from "@/server/crypto/person-box";
import { getDb } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { type Artifact, checkByRecipe, type DidDocument } from "@/server/testing/export-recipe-checker";
import { walletKey } from "@/server/testing/factories";
import { call, client, createTestOrg, testServer } from "@/server/testing/harness";
import { checkStatusWithDigitalBazaar } from "@/server/testing/independent-status-checker";
import { bindWithWallet } from "@/server/testing/kyc-flow";
import { fakeSumsubForKyc } from "@/server/testing/sumsub-kyc";
import { runExportJobs } from "../audit/exports";
import { importList } from "../screening/import";
import { runMonitoring } from "../screening/monitoring-runs";
import { runDueErasures } from "./erasure";

// Erasure of one person (docs/data-protection.md): nothing personal left anywhere in the database
// or the logs, the audit trail still provable before and after, the credential revoked for any
// relying party, and no screening of the person afterwards. Holds: an open case or the AML
// retention period schedule the erasure, and the worker carries it out when the hold ends.

const run = promisify(execFile);
const lines: string[] = [];
const g = globalThis as unknown as { __biLog?: unknown; __biAccessLog?: unknown };
const previous = { log: g.__biLog, access: g.__biAccessLog };
const fakeSumsub = fakeSumsubForKyc();

beforeAll(async () => {
  const sink = new Writable({
    write: (chunk, _enc, done) => {
      lines.push(String(chunk));
      done();
    },
  });
  g.__biLog = createLogger("debug", sink);
  g.__biAccessLog = createLogger("debug", sink, { redact: false });
});

afterAll(async () => {
  g.__biLog = previous.log;
  g.__biAccessLog = previous.access;
});

type Api = ReturnType<typeof client>;

/** A person verified by Sumsub (name, birth date, country and phone from the review), with an email-verified account bound to them. */
async function verifiedCustomer(url: string, api: Api, who: { first: string; last: string; dob: string; phone: string; email: string }) {
  const db = await getDb();
  const started = await api.post("/v1/kyc/start", {});
  expect(started.status, started.text).toBe(200);
  const personDid = started.body.personDid as string;
  const personId = personDid.split(":").pop()!;
  const applicant = [...fakeSumsub().applicants.values()].find((a) => a.externalUserId === personId)!;
  fakeSumsub().review(applicant.id, {
    answer: "GREEN",
    phone: who.phone,
    info: { firstName: who.first, lastName: who.last, dob: who.dob, country: "GHA" },
  });
  expect(await fakeSumsub().send(`${url}/v1/kyc/callbacks/sumsub`, fakeSumsub().reviewedCallback(applicant.id))).toBe(200);
  const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`);
  expect(status.body.status).toBe("approved");

  const otp = await api.post("/v1/email/otp/start", { email: who.email });
  expect(otp.status, otp.text).toBe(200);
  const mail = await db.devOutboxMessage.findFirstOrThrow({ where: { to: who.email }, orderBy: { createdAt: "desc" } });
  const proof = await api.post("/v1/email/otp/confirm", { challengeId: otp.body.challengeId, code: /(\d{6})/.exec(mail.body)![1] });
  expect(proof.status, proof.text).toBe(200);

  const wallet = walletKey();
  const created = await api.post("/v1/accounts/free", {
    ownerPublicKey: wallet.publicKey,
    kycCreateToken: status.body.createToken,
    personDid,
    emailProofToken: proof.body.emailProofToken,
    deviceFingerprint: `device-of-${who.last}`,
  });
  expect(created.status, created.text).toBe(201);
  const accountDid = created.body.accountDid as string;
  const credential = await bindWithWallet(api, { accountDid, personDid, privateKey: wallet.privateKey });
  return { personDid, personId, accountDid, applicantId: applicant.id, credential };
}

async function exportRange(api: Api, from: Date, to: Date): Promise<Artifact> {
  const db = await getDb();
  const requested = await api.post("/v1/compliance/export", { from: from.toISOString(), to: to.toISOString() });
  expect(requested.status, requested.text).toBe(200);
  const orgId = (await db.exportJob.findUniqueOrThrow({ where: { id: requested.body.jobId } })).orgId;
  for (let i = 0; i < 20; i++) {
    await runExportJobs(db, { limit: 10, orgId });
    if ((await db.exportJob.findUniqueOrThrow({ where: { id: requested.body.jobId } })).status === "completed") break;
  }
  const job = await api.get(`/v1/compliance/export/${requested.body.jobId}`);
  expect(job.body.status, job.text).toBe("completed");
  return job.body.artifact as Artifact;
}

/** `npm run export:verify` as a regulator runs it, offline, with the issuer's DID document: the JSON line it prints, valid or not. */
async function exportVerify(artifact: unknown, didDocument: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-erasure-export-"));
  try {
    fs.writeFileSync(path.join(dir, "export.json"), JSON.stringify(artifact));
    fs.writeFileSync(path.join(dir, "did.json"), JSON.stringify(didDocument));
    const args = [
      "--import",
      "tsx",
      "scripts/export-verify.ts",
      path.join(dir, "export.json"),
      "--did-document",
      path.join(dir, "did.json"),
    ];
    const stdout = await run(process.execPath, args).then(
      (r) => r.stdout,
      (err: { stdout: string }) => err.stdout,
    );
    return JSON.parse(stdout.trim()) as { valid: boolean; entries?: number; reason?: string };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The value in every form it could be kept in without a key: as is, lower case, base64, base64url, hex, URL-encoded. */
function reversibleForms(value: string): string[] {
  const b = Buffer.from(value, "utf8");
  return [
    ...new Set([
      value,
      value.toLowerCase(),
      b.toString("base64").replace(/=+$/, ""),
      b.toString("base64url"),
      b.toString("hex"),
      encodeURIComponent(value),
    ]),
  ];
}

/**
 * Every text, json, bytea and array column of every table, searched for each form of each value;
 * the hits as "table.column: value".
 */
async function scanDatabase(values: string[]): Promise<string[]> {
  const db = await getDb();
  const columns = await db.$queryRaw<{ table_name: string; column_name: string; data_type: string }[]>`
    SELECT table_name, column_name, data_type FROM information_schema.columns
    WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'json', 'jsonb', 'bytea', 'ARRAY')
      -- The sanctions and PEP lists: public reference data, not anything about our people.
      AND table_name NOT LIKE 'screening\_entr%'`;
  const hits: string[] = [];
  const patterns = (value: string) => reversibleForms(value).map((f) => `%${f.replace(/[%_\\]/g, "\\$&")}%`);
  const tables = new Map<string, typeof columns>();
  for (const c of columns) tables.set(c.table_name, [...(tables.get(c.table_name) ?? []), c]);
  // One pass over each table answers, for every column and value, whether some row holds it
  // (a query per column and value read the whole table once for each).
  for (const [table, cols] of tables) {
    const pairs = cols.flatMap((c) => values.map((value, i) => ({ c, value, i })));
    const text = (c: (typeof columns)[number]) =>
      c.data_type === "bytea" ? `encode("${c.column_name}", 'escape') || encode("${c.column_name}", 'hex')` : `"${c.column_name}"::text`;
    const [row] = await db.$queryRawUnsafe<{ found: (boolean | null)[] }[]>(
      `SELECT ARRAY[${pairs.map(({ c, i }) => `bool_or(${text(c)} ILIKE ANY($${i + 1}::text[]))`).join(", ")}] AS found FROM "${table}"`,
      ...values.map(patterns),
    );
    pairs.forEach(({ c, value }, k) => {
      if (row!.found[k]) hits.push(`${c.table_name}.${c.column_name}: ${value}`);
    });
  }
  return hits;
}

describe("erasing a person", () => {
  it("leaves no personal value in any column or log line, keeps the audit trail provable, revokes the credential and screens them no more", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    // No retention period here: the hold is tested below.
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).body).toMatchObject({ amlRetentionDays: 0 });
    const from = new Date(Date.now() - 60_000);
    const to = new Date(Date.now() + 3_600_000);
    const who = { first: "Adwoa", last: "Quansah-Boateng", dob: "1987-04-23", phone: "+233 24 987 1234", email: "adwoa.qb@mail.example" };
    const ama = await verifiedCustomer(url, api, who);
    // A case about her, opened by hand to clear with a reason that names her, then (four-eyes:
    // the clear waits for a second pair of eyes) a comment and a confirming reason naming her too.
    const nickname = "Adwoaba";
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const proposed = await api.post("/v1/aml/clear", {
      subjectDid: ama.personDid,
      reason: "Adwoa Quansah-Boateng called; the match is her namesake",
    });
    expect(proposed.status, proposed.text).toBe(200);
    expect(proposed.body.pendingApproval).toBe(true);
    const caseId = proposed.body.caseId as string;
    const note = await api.post(`/v1/aml/cases/${caseId}/comments`, { text: `${nickname} (born ${who.dob}) sent her passport again` });
    expect(note.status, note.text).toBe(201);
    const confirmed = await api.post(`/v1/aml/cases/${caseId}/confirm`, { reason: `On a second look ${nickname} is the listed person` });
    expect(confirmed.status, confirmed.text).toBe(200);
    // Someone else, who must keep everything.
    const other = await verifiedCustomer(url, api, {
      first: "Kwesi",
      last: "Appiah-Danquah",
      dob: "1979-12-01",
      phone: "+233 20 111 2233",
      email: "kwesi.ad@mail.example",
    });
    const values = [`${who.first} ${who.last}`, who.last, who.dob, who.email, "+233249871234", "249871234", ama.applicantId, nickname];
    const otherValues = ["Appiah-Danquah", "kwesi.ad@mail.example", "+233201112233"];
    const personal = await scanDatabase([...values, ...otherValues]);
    // Before: her account's contacts, her codes' addresses and her verification's provider reference
    // are sealed; in clear are only the messages in the dev outbox, which stands in for the mail and
    // SMS providers.
    expect(personal.filter((h) => !/^dev_outbox_messages\.to:/.test(h))).toEqual([]);
    // The scan sees what is in clear: the dev outbox's addresses are found.
    expect(personal.filter((h) => /^dev_outbox_messages\.to:/.test(h)).length).toBeGreaterThan(0);
    const accountBefore = await db.account.findFirstOrThrow({ where: { did: ama.accountDid } });
    expect(openContacts(accountBefore).email).toBe(who.email);
    // Her verified phone and provider reference are sealed under her key.
    expect(personal.filter((h) => h.startsWith("people."))).toEqual([]);
    // What officers wrote about her is sealed already: no clear copy in any AML table.
    expect(personal.filter((h) => h.startsWith("aml_"))).toEqual([]);

    const human = (await db.person.findUniqueOrThrow({ where: { id: ama.personId } })).nameBirthHumanId;
    expect(await db.identityHash.count({ where: { humanId: human! } })).toBeGreaterThan(0);
    const e1 = await exportRange(api, from, to);
    const erased = await api.post(`/v1/people/${encodeURIComponent(ama.personDid)}/erase`, {});
    expect(erased.status, erased.text).toBe(200);
    expect(erased.body).toMatchObject({
      personDid: ama.personDid,
      status: "erased",
      bindingsRevoked: 1,
      accountsCleared: 1,
      casesRedacted: 1,
    });
    // Idempotent: the same answer again, nothing more written.
    const seqAfter = await db.auditHead.findUniqueOrThrow({ where: { orgId: org.orgId } });
    const again = await api.post(`/v1/people/${encodeURIComponent(ama.personDid)}/erase`, {});
    expect(again.status).toBe(200);
    expect(again.body).toEqual(erased.body);
    expect((await db.auditHead.findUniqueOrThrow({ where: { orgId: org.orgId } })).seq).toBe(seqAfter.seq);

    // Nothing of hers in any column, in any reversible form; the other customer keeps everything.
    const after = await scanDatabase([...values, ...otherValues]);
    expect(after.filter((h) => values.some((v) => h.endsWith(`: ${v}`)))).toEqual([]);
    expect(openContacts(await db.account.findFirstOrThrow({ where: { did: other.accountDid } })).email).toBe("kwesi.ad@mail.example");
    // Her account's data key is gone with its contacts: a copy of the sealed email taken before opens no more.
    const accountAfter = await db.account.findFirstOrThrow({ where: { did: ama.accountDid } });
    expect(accountAfter).toMatchObject({ email: null, emailHash: null, phone: null, phoneHash: null, dataKeySealed: null });
    expect(openContact(accountBefore.email, accountAfter.dataKeySealed)).toBeNull();
    const kept = await db.person.findUniqueOrThrow({ where: { id: other.personId }, include: { dataKey: true } });
    expect(openPersonal(kept.verifiedPhone!, kept.dataKey?.keySealed)).toBe("+233201112233");
    expect((await db.personKey.findUniqueOrThrow({ where: { personId: ama.personId } })).keySealed).toBeNull();
    // The identity hashes that named only her are gone.
    expect(await db.identityHash.count({ where: { humanId: human! } })).toBe(0);
    expect((await db.personKey.findUniqueOrThrow({ where: { personId: other.personId } })).keySealed).not.toBeNull();

    // The trail before and after: both exports verify, offline and by the recipe; E2 holds E1
    // unchanged, then the revocation and the tombstone, and no personal value.
    const didDocument = (await call(url, "GET", "/.well-known/did.json")).body;
    const e2 = await exportRange(api, from, to);
    for (const artifact of [e1, e2]) {
      expect(await exportVerify(artifact, didDocument)).toMatchObject({ valid: true, entries: artifact.entries.length });
      expect(checkByRecipe(artifact, didDocument as DidDocument)).toBeNull();
    }
    expect(e2.entries.slice(0, e1.entries.length)).toEqual(e1.entries);
    const tail = e2.entries.slice(e1.entries.length);
    expect(tail.map((e) => e.action).filter((a) => !a.startsWith("compliance.export"))).toEqual(["identity.unbound", "person.erased"]);
    expect(tail.find((e) => e.action === "person.erased")).toMatchObject({
      subjectType: "person",
      subject: ama.personDid,
      data: { bindingsRevoked: 1, casesRedacted: 1 },
    });
    const e2Text = JSON.stringify(e2);
    for (const v of values) for (const form of reversibleForms(v)) expect(e2Text.toLowerCase()).not.toContain(form.toLowerCase());

    // Nothing in the logs of the whole run either.
    const logText = lines.join("");
    expect(logText.length).toBeGreaterThan(0);
    for (const v of values) for (const form of reversibleForms(v)) expect(logText.toLowerCase(), v).not.toContain(form.toLowerCase());

    // The person's DID document says nothing; her credential reads revoked for a relying party.
    const doc = await call(url, "GET", `/people/${ama.personId}/did.json`);
    expect(doc.body).toMatchObject({ kycStatus: "erased", bindings: [] });
    const issuer = (await call(url, "GET", "/.well-known/did.json")).body;
    const status = await checkStatusWithDigitalBazaar(
      ama.credential,
      issuer,
      async (listUrl) => (await call(url, "GET", new URL(listUrl).pathname)).body,
    );
    expect(status).toEqual({ verified: true, revocation: true, suspension: false });
    const event = await db.outboxEvent.findFirstOrThrow({ where: { orgId: org.orgId, event: "person.erased" } });
    expect(event.payload).toEqual({ personDid: ama.personDid, erasedAt: erased.body.erasedAt });

    // A list naming her, then a re-screen: no case for the erased person (the other is screened as before).
    await importList(db, {
      format: "ftm",
      list: `erasure-${org.orgId.slice(0, 8)}`,
      files: [
        {
          name: "entities.ftm.json",
          text: JSON.stringify({
            id: "adwoa-1",
            schema: "Person",
            properties: { name: [`${who.first} ${who.last}`], birthDate: [who.dob], country: ["gh"], topics: ["sanction"] },
          }),
        },
      ],
      importedBy: "test:erasure",
    });
    const casesBefore = await db.amlCase.count({ where: { orgId: org.orgId } });
    await runMonitoring(db, { orgId: org.orgId, limit: 10 });
    const runRow = await db.screeningMonitorRun.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { createdAt: "desc" } });
    expect(runRow).toMatchObject({ status: "completed", personsScreened: 1, casesOpened: 0 });
    expect(await db.amlCase.count({ where: { orgId: org.orgId } })).toBe(casesBefore);

    // No create token for her any more; bind refuses her.
    const kycStatus = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(ama.personDid)}`);
    expect(kycStatus.status).toBe(200);
    expect(kycStatus.body.createToken).toBeUndefined();
    expect(await db.kycCreateToken.count({ where: { personId: ama.personId } })).toBe(0);
    const bind = await api.post("/v1/bind/challenge", { accountDid: ama.accountDid, personDid: ama.personDid });
    expect(bind.status).toBe(409);
    expect(bind.body.error.details.reason).toBe("person_erased");
  }, 120_000);
});

describe("a held erasure", () => {
  it("answers 409 with the date the retention period ends, is carried out by the worker once it has passed, and can be withdrawn before", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 30 })).status).toBe(200);
    const p = await verifiedCustomer(url, api, {
      first: "Efua",
      last: "Sarpong",
      dob: "1992-08-14",
      phone: "+233 26 555 0101",
      email: "efua.s@mail.example",
    });
    const path = `/v1/people/${encodeURIComponent(p.personDid)}/erase`;
    const requestedAt = Date.now();
    const held = await api.post(path, {});
    expect(held.status, held.text).toBe(409);
    expect(held.body.error.details).toMatchObject({ reason: "erasure_held", heldBy: ["aml_retention"], scheduled: true });
    const erasableFrom = Date.parse(held.body.error.details.erasableFrom);
    // The relationship ended with the request (its binding revoked now): thirty days from then.
    expect(erasableFrom - requestedAt).toBeGreaterThanOrEqual(30 * 86_400_000 - 5_000);
    expect(erasableFrom - requestedAt).toBeLessThanOrEqual(30 * 86_400_000 + 5_000);
    expect((await db.accountBinding.findFirstOrThrow({ where: { personId: p.personId } })).status).toBe("revoked");
    expect((await api.get(path)).body).toMatchObject({ status: "scheduled", heldBy: ["aml_retention"], erasedAt: null });
    const heldRow = await db.person.findUniqueOrThrow({ where: { id: p.personId }, include: { dataKey: true } });
    expect(openPersonal(heldRow.verifiedPhone!, heldRow.dataKey?.keySealed)).toBe("+233265550101");

    // Before the date the worker leaves it; after it, the worker erases.
    expect(await runDueErasures(db, new Date(erasableFrom - 60_000))).toEqual({ erased: 0, stillHeld: 0 });
    expect((await db.person.findUniqueOrThrow({ where: { id: p.personId } })).erasedAt).toBeNull();
    const done = await runDueErasures(db, new Date(erasableFrom + 1_000));
    expect(done).toEqual({ erased: 1, stillHeld: 0 });
    const person = await db.person.findUniqueOrThrow({ where: { id: p.personId } });
    expect(person).toMatchObject({ verifiedPhone: null, verifiedPhoneHash: null, country: null, providerApplicantId: null });
    expect(person.erasedAt?.getTime()).toBe(erasableFrom + 1_000);
    expect((await api.get(path)).body).toMatchObject({ status: "completed", heldBy: [] });
    const tomb = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "person.erased" } });
    expect(tomb).toMatchObject({ actor: "system:erasure", subject: p.personDid });
    // The tenant's later request answers what was done.
    const later = await api.post(path, {});
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ status: "erased", erasedAt: person.erasedAt!.toISOString() });
    expect((await api.delete(path)).body.error.details.reason).toBe("already_erased");

    // Another, withdrawn before its date: never carried out.
    const q = await verifiedCustomer(url, api, {
      first: "Kojo",
      last: "Antwi",
      dob: "1990-02-03",
      phone: "+233 27 555 0202",
      email: "kojo.a@mail.example",
    });
    const qPath = `/v1/people/${encodeURIComponent(q.personDid)}/erase`;
    const qHeld = await api.post(qPath, {});
    expect(qHeld.status).toBe(409);
    const withdrawn = await api.delete(qPath);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.status).toBe("withdrawn");
    expect(await runDueErasures(db, new Date(Date.parse(qHeld.body.error.details.erasableFrom) + 1_000))).toEqual({
      erased: 0,
      stillHeld: 0,
    });
    expect((await db.person.findUniqueOrThrow({ where: { id: q.personId } })).erasedAt).toBeNull();
  }, 120_000);

  it("waits for an open case to be closed, whatever the retention period", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    const p = await verifiedCustomer(url, api, {
      first: "Yaw",
      last: "Ofori",
      dob: "1985-05-05",
      phone: "+233 20 555 0303",
      email: "yaw.o@mail.example",
    });
    // Four-eyes: a clear by this key leaves the case waiting for another's approval, so it stays open.
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const proposed = await api.post("/v1/aml/clear", { subjectDid: p.personDid, reason: "Proposed by the first officer" });
    expect(proposed.body).toMatchObject({ pendingApproval: true });
    const path = `/v1/people/${encodeURIComponent(p.personDid)}/erase`;
    const held = await api.post(path, {});
    expect(held.status).toBe(409);
    expect(held.body.error.details).toMatchObject({ reason: "erasure_held", heldBy: ["open_case"], erasableFrom: null });
    // Still open: the worker keeps it scheduled.
    expect(await runDueErasures(db, new Date(Date.now() + 86_400_000))).toEqual({ erased: 0, stillHeld: 1 });
    await db.amlCase.updateMany({ where: { orgId: org.orgId, personId: p.personId }, data: { status: "cleared", closedAt: new Date() } });
    expect(await runDueErasures(db, new Date(Date.now() + 60_000))).toEqual({ erased: 1, stillHeld: 0 });
    expect((await db.person.findUniqueOrThrow({ where: { id: p.personId } })).erasedAt).not.toBeNull();
  }, 120_000);
});

describe("an access request", () => {
  it("exports everything held about the person, opened and signed; a changed export does not verify; after erasure nothing personal is left in it", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    const who = { first: "Abena", last: "Owusu-Ansah", dob: "1991-11-11", phone: "+233 50 123 4567", email: "abena.oa@mail.example" };
    const p = await verifiedCustomer(url, api, who);
    const res = await api.get(`/v1/people/${encodeURIComponent(p.personDid)}/export`);
    expect(res.status, res.text).toBe(200);
    const exported = res.body;
    expect(exported).toMatchObject({ format: "bi-person-export/1", personDid: p.personDid, organizationId: org.orgId });
    expect(exported.data.verifiedIdentity).toEqual({ name: `${who.first} ${who.last}`, birthDate: who.dob, country: "GH" });
    expect(exported.data.person).toMatchObject({ kycStatus: "approved", verifiedPhone: "+233501234567", country: "GH" });
    expect(exported.data.accounts).toEqual([expect.objectContaining({ accountDid: p.accountDid, email: who.email })]);
    expect(exported.data.bindings).toEqual([expect.objectContaining({ accountDid: p.accountDid, status: "active" })]);
    expect(exported.data.verifications).toEqual([expect.objectContaining({ provider: "sumsub", providerReference: p.applicantId })]);
    expect(exported.data.withheld).toEqual(["aml_cases", "screening_results", "risk_events"]);

    const didDocument = (await call(url, "GET", "/.well-known/did.json")).body;
    expect(await exportVerify(exported, didDocument)).toMatchObject({ valid: true, format: "bi-person-export/1", personDid: p.personDid });
    const changed = structuredClone(exported);
    changed.data.person.country = "NG";
    expect(await exportVerify(changed, didDocument)).toEqual({ valid: false, reason: "the data digest does not match the data" });
    const db = await getDb();
    expect(await db.auditEntry.count({ where: { orgId: org.orgId, action: "person.exported", subject: p.personDid } })).toBe(1);

    expect((await api.post(`/v1/people/${encodeURIComponent(p.personDid)}/erase`, {})).status).toBe(200);
    const after = (await api.get(`/v1/people/${encodeURIComponent(p.personDid)}/export`)).body;
    expect(after.data.verifiedIdentity).toBeNull();
    const text = JSON.stringify(after.data).toLowerCase();
    for (const v of [who.last, who.dob, who.email, "+233501234567", p.applicantId]) expect(text).not.toContain(v.toLowerCase());
  }, 120_000);
});
