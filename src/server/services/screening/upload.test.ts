import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ServiceContext } from "../../context";
import { AppError } from "../../errors";
import { didOf, serviceCtx } from "../../testing/aml";
import { createTestOrg, type TestOrg } from "../../testing/harness";
import { importList } from "./import";
import { diffListVersions, listListVersions } from "./list-versions";
import { runMonitoring } from "./monitoring-runs";
import { rememberScreeningSubject } from "./monitoring-subjects";
import { screenAccount, screenPerson } from "./screen";
import { uploadOrgList } from "./upload";

// An organization's own list (docs/screening.md § Lists): uploaded through the same parsers as
// `screening:import`, screened for that organization alone, never for another.

const b64 = (text: string) => Buffer.from(text, "latin1").toString("base64");
const sdnRow = (id: number, name: string, remarks: string) =>
  `${id},"${name}","individual","SDGT","-0-","-0-","-0-","-0-","-0-","-0-","-0-","${remarks}"`;
const uniqueList = () => `own-${randomBytes(4).toString("hex")}`;

async function ctxOf(org: TestOrg, role: "compliance_officer" | "admin" = "compliance_officer"): Promise<ServiceContext> {
  return serviceCtx(org.db, org.orgId, { type: "member", email: "officer@example.test", role });
}

async function approved(org: TestOrg, name: string, birthDate: string, country: string) {
  const p = await org.db.person.create({ data: { orgId: org.orgId, kycStatus: "approved", country } });
  await rememberScreeningSubject(org.db, { orgId: org.orgId, personId: p.id, name, birthDate, country });
  return { id: p.id, did: didOf(p.id) };
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("an organization's own list", () => {
  it("imports an OFAC upload as the organization's version, audited, and the same files again change nothing", async () => {
    const org = await createTestOrg();
    const ctx = await ctxOf(org);
    const list = uniqueList();
    const sdn = `${sdnRow(9101, "QUARTERMAINE, Ottoline Bexley", "DOB 14 Feb 1966; nationality Portugal.")}\r\n`;
    const alt = `9101,1,"aka","QUARTERMAIN, Ottoline","-0-"\r\n`;
    const files = [
      { name: "SDN.CSV", contentBase64: b64(sdn) },
      { name: "ALT.CSV", contentBase64: b64(alt) },
    ];
    const first = await uploadOrgList(ctx, { format: "ofac", list, files });
    expect(first).toMatchObject({ list, format: "ofac", entryCount: 1, unchanged: false });
    const version = await org.db.screeningListVersion.findUniqueOrThrow({ where: { id: first.listVersionId } });
    expect(version).toMatchObject({ orgId: org.orgId, active: true, importedBy: "member:officer@example.test" });
    const entry = await org.db.screeningEntry.findFirstOrThrow({ where: { listVersionId: first.listVersionId } });
    expect(entry).toMatchObject({ name: "Ottoline Bexley QUARTERMAINE", birthDates: ["1966-02-14"], countries: ["PT"] });
    expect(entry.aliases).toContain("Ottoline QUARTERMAIN");

    const again = await uploadOrgList(ctx, { format: "ofac", list, files });
    expect(again).toMatchObject({ listVersionId: first.listVersionId, unchanged: true });
    expect(await org.db.screeningListVersion.count({ where: { list, orgId: org.orgId } })).toBe(1);
    const audit = await org.db.auditEntry.findMany({ where: { orgId: org.orgId, action: "screening.list_imported" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: "member:officer@example.test", subject: first.listVersionId });
    expect(audit[0]!.data).toMatchObject({ list, format: "ofac", entryCount: 1 });
    // The scope shows in the versions the organization reads.
    const { versions } = await listListVersions(ctx, { list, limit: 50 });
    expect(versions).toEqual([expect.objectContaining({ listVersionId: first.listVersionId, scope: "organization", active: true })]);
  });

  it("refuses a bad line with its file and line number, never its content, and changes nothing", async () => {
    const org = await createTestOrg();
    const ctx = await ctxOf(org);
    const list = uniqueList();
    const sdn = `${sdnRow(9201, "GOODROW, Alma", "-0-")}\r\n9202,"SECRETNAME, Person","individual"\r\n`;
    const err = await rejection(uploadOrgList(ctx, { format: "ofac", list, files: [{ name: "SDN.CSV", contentBase64: b64(sdn) }] }));
    expect(err.code).toBe("VALIDATION_ERROR");
    const issues = (err.details as { issues: { path: string; message: string }[] }).issues;
    expect(issues).toEqual([{ path: "body.files", message: "SDN.CSV, line 2: expected 12 columns, found 3" }]);
    expect(JSON.stringify(err.details)).not.toContain("SECRETNAME");
    expect(await org.db.screeningListVersion.count({ where: { list } })).toBe(0);
    expect(await org.db.auditEntry.count({ where: { orgId: org.orgId, action: "screening.list_imported" } })).toBe(0);
  });

  it("refuses a NUL or an unpaired surrogate in a list as a format error naming the file and line, never the value", async () => {
    const org = await createTestOrg();
    const ctx = await ctxOf(org);
    const list = uniqueList();
    const ftmLine = (name: string) =>
      `{"id":"own-${randomBytes(3).toString("hex")}","schema":"Person","properties":{"name":[${JSON.stringify(name)}]}}`;
    const utf8 = (text: string) => Buffer.from(text, "utf8").toString("base64");
    const cases: Array<{ format: "ofac" | "ftm" | "labels"; name: string; text: string; line: number; latin1?: boolean }> = [
      // A NUL byte in the file itself (UTF-8 and single-byte files alike).
      {
        format: "ofac",
        name: "SDN.CSV",
        text: `${sdnRow(9301, "GOODROW, Alma", "-0-")}\r\n${sdnRow(9302, "SECRET\u0000NAME, Pat", "-0-")}\r\n`,
        line: 2,
      },
      { format: "labels", name: "labels.csv", text: "chain_account,labels,score\nabc,scam,90\nabd,SECRET\u0000LABEL,80\n", line: 3 },
      // Not UTF-8 (0xE9 alone), so read as Windows-1252.
      {
        format: "labels",
        name: "labels.csv",
        text: "chain_account,labels,score\nabc,caf\u00e9,90\nabd,SECRET\u0000LABEL,80\n",
        line: 3,
        latin1: true,
      },
      { format: "ftm", name: "own.json", text: `${ftmLine("Alma Goodrow")}\n${ftmLine("SECRET_NAME").replace("_", "\u0000")}\n`, line: 2 },
      // JSON escapes that decode to a NUL or to half a surrogate pair.
      {
        format: "ftm",
        name: "own.json",
        text: `${ftmLine("Alma Goodrow")}\n${ftmLine("Alma Goodrow").replace("Alma Goodrow", "SECRET\\u0000NAME")}\n`,
        line: 2,
      },
      {
        format: "ftm",
        name: "own.json",
        text: `${ftmLine("Alma Goodrow")}\n\n${ftmLine("Alma Goodrow").replace("Alma Goodrow", "SECRET\\ud800NAME")}\n`,
        line: 3,
      },
      { format: "ftm", name: "own.json", text: `${ftmLine("Alma Goodrow").replace("Alma Goodrow", "Pat \\udc00SECRET")}\n`, line: 1 },
    ];
    for (const c of cases) {
      const err = await rejection(
        uploadOrgList(ctx, { format: c.format, list, files: [{ name: c.name, contentBase64: c.latin1 ? b64(c.text) : utf8(c.text) }] }),
      );
      const where = `${c.format} ${c.name}:${c.line}`;
      expect(err.code, where).toBe("VALIDATION_ERROR");
      expect((err.details as { issues: { path: string; message: string }[] }).issues, where).toEqual([
        {
          path: "body.files",
          message: `${c.name}, line ${c.line}: contains a character that cannot be stored (NUL or an unpaired surrogate)`,
        },
      ]);
      expect(JSON.stringify(err.details)).not.toContain("SECRET");
    }
    expect(await org.db.screeningListVersion.count({ where: { list } })).toBe(0);
    expect(await org.db.auditEntry.count({ where: { orgId: org.orgId, action: "screening.list_imported" } })).toBe(0);
  });

  it("refuses files over 10 MB together, before parsing anything", async () => {
    const org = await createTestOrg();
    const ctx = await ctxOf(org);
    const list = uniqueList();
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, "a").toString("base64");
    const err = await rejection(uploadOrgList(ctx, { format: "labels", list, files: [{ name: "labels.csv", contentBase64: big }] }));
    expect((err.details as { issues: { path: string; message: string }[] }).issues).toEqual([
      { path: "body.files", message: "the files are larger than 10 MB together" },
    ]);
    expect(await org.db.screeningListVersion.count({ where: { list } })).toBe(0);
  });

  it("refuses the name of a global list and a second file for a one-file format", async () => {
    const org = await createTestOrg();
    const ctx = await ctxOf(org);
    const global = uniqueList();
    await importList(org.db, {
      format: "labels",
      list: global,
      files: [{ name: "l.csv", text: "chain_account,labels,score\nabc,scam,90\n" }],
      importedBy: "test",
    });
    const labels = { name: "labels.csv", contentBase64: b64("chain_account,labels,score\nabc,scam,90\n") };
    const named = await rejection(uploadOrgList(ctx, { format: "labels", list: global, files: [labels] }));
    expect((named.details as { issues: { path: string }[] }).issues[0]!.path).toBe("body.list");
    const two = await rejection(uploadOrgList(ctx, { format: "labels", list: uniqueList(), files: [labels, labels] }));
    expect((two.details as { issues: { path: string }[] }).issues[0]!.path).toBe("body.files");
  });

  it("is screened for its organization only: org A's list never matches org B's people", async () => {
    const a = await createTestOrg();
    const b = await createTestOrg();
    const ctxA = await ctxOf(a);
    const ctxB = await ctxOf(b);
    const list = uniqueList();
    const name = "Evangelina Thaddea Worthingham";
    const ftm = JSON.stringify({
      id: "own-1",
      schema: "Person",
      properties: { name: [name], birthDate: ["1977-07-07"], country: ["NZ"], topics: ["sanction"] },
    });
    // Both organizations have the same person approved before the list arrives.
    const personA = await approved(a, name, "1977-07-07", "NZ");
    const personB = await approved(b, name, "1977-07-07", "NZ");

    const up = await uploadOrgList(ctxA, { format: "ftm", list, files: [{ name: "own.json", contentBase64: b64(ftm) }] });
    // The re-screen is queued for the owner only.
    const runs = await a.db.screeningMonitorRun.findMany({ where: { listVersionId: up.listVersionId } });
    expect(runs.map((r) => r.orgId)).toEqual([a.orgId]);

    // Through a monitoring run: A's person is hit, B's never (B has no run, and a run of B reads no foreign list).
    await runMonitoring(a.db, { orgId: a.orgId, limit: 10 });
    await runMonitoring(b.db, { orgId: b.orgId, limit: 10 });
    expect(await a.db.amlCase.count({ where: { orgId: a.orgId, personId: personA.id } })).toBe(1);
    expect(await b.db.amlCase.count({ where: { orgId: b.orgId } })).toBe(0);
    expect(await b.db.screeningResult.count({ where: { orgId: b.orgId } })).toBe(0);

    // A periodic run of B against "every active list" does not read A's list either.
    await b.db.screeningMonitorRun.create({ data: { orgId: b.orgId, kind: "periodic", dedupeKey: `periodic:test-${list}` } });
    await runMonitoring(b.db, { orgId: b.orgId, limit: 10 });
    const periodic = await b.db.screeningMonitorRun.findFirstOrThrow({ where: { orgId: b.orgId, kind: "periodic" } });
    expect(periodic).toMatchObject({ status: "completed", personsScreened: 1, hits: 0 });
    expect(await b.db.amlCase.count({ where: { orgId: b.orgId, personId: personB.id } })).toBe(0);

    // Through screenPerson: the same name matches A's list for A, nothing of it for B.
    const forA = await screenPerson(a.db, { orgId: a.orgId, subjectRef: "ref-a", name, birthDate: "1977-07-07", country: "NZ" });
    expect(forA.matches.map((m) => m.externalId)).toContain("own-1");
    expect(forA.listVersions).toContain(up.listVersionId);
    const forB = await screenPerson(b.db, { orgId: b.orgId, subjectRef: "ref-b", name, birthDate: "1977-07-07", country: "NZ" });
    expect(forB.matches.filter((m) => m.list === list)).toEqual([]);
    expect(forB.listVersions).not.toContain(up.listVersionId);

    // B neither sees A's versions nor can diff them (404, as any other organization's record).
    const seenByB = await listListVersions(ctxB, { list, limit: 50 });
    expect(seenByB.versions).toEqual([]);
    const err = await rejection(diffListVersions(ctxB, { from: up.listVersionId, to: up.listVersionId }));
    expect(err.code).toBe("NOT_FOUND");
  });

  it("may share its name with another organization's list, and an account-labels upload is screened for its owner only", async () => {
    const a = await createTestOrg();
    const b = await createTestOrg();
    const list = uniqueList();
    // An Antelope account name: a–z and 1–5.
    const account = `own${[...randomBytes(8)].map((x) => "abcdefghijklmnopqrstuvwxyz12345"[x % 31]).join("")}`;
    const file = (score: number) => ({
      name: "labels.csv",
      contentBase64: b64(`chain_account,labels,score\n${account},own-watch,${score}\n`),
    });
    const va = await uploadOrgList(await ctxOf(a), { format: "labels", list, files: [file(70)] });
    const vb = await uploadOrgList(await ctxOf(b), { format: "labels", list, files: [file(40)] });
    expect(va.listVersionId).not.toBe(vb.listVersionId);
    const active = await a.db.screeningListVersion.findMany({ where: { list, active: true }, select: { orgId: true } });
    expect(active.map((v) => v.orgId).sort()).toEqual([a.orgId, b.orgId].sort());
    expect((await screenAccount(a.db, { orgId: a.orgId, chainAccount: account })).score).toBe(70);
    expect((await screenAccount(b.db, { orgId: b.orgId, chainAccount: account })).score).toBe(40);
    const c = await createTestOrg();
    expect(await screenAccount(c.db, { orgId: c.orgId, chainAccount: account })).toMatchObject({ score: 0, labels: [] });
  });

  it("diffs two versions of the organization's list with names", async () => {
    const org = await createTestOrg();
    const ctx = await ctxOf(org);
    const list = uniqueList();
    const v1 = await uploadOrgList(ctx, {
      format: "ofac",
      list,
      files: [{ name: "SDN.CSV", contentBase64: b64(`${sdnRow(1, "ALPHA, Anna", "-0-")}\n${sdnRow(2, "BETA, Bruno", "-0-")}\n`) }],
    });
    const v2 = await uploadOrgList(ctx, {
      format: "ofac",
      list,
      files: [{ name: "SDN.CSV", contentBase64: b64(`${sdnRow(2, "BETA, Bruna", "-0-")}\n${sdnRow(3, "GAMMA, Gert", "-0-")}\n`) }],
    });
    const diff = await diffListVersions(ctx, { from: v1.listVersionId, to: v2.listVersionId });
    expect(diff).toMatchObject({ counts: { added: 1, removed: 1, changed: 1 }, added: ["3"], removed: ["1"], changed: ["2"] });
    expect(diff.names).toEqual({ "1": "Anna ALPHA", "2": "Bruna BETA", "3": "Gert GAMMA" });
  });
});
