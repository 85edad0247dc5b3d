import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { entryArgs } from "@/server/testing/built-entries";
import { getDb } from "../../db/client";
import { testListName } from "../../testing/screening-lists";
import { DEFAULT_LIST, importList, ListFormatError, OWN_KEY_PARTITION_FROM } from "./import";
import { importListFiles } from "./import-files";
import { importFtmStream } from "./import-ftm";
import { everySharingAKey } from "./retrieval";
import { ensureSandboxLists, FIXTURE_DIR, resetSandboxListsMemo } from "./sandbox-lists";

const fixture = (name: string) => path.join(FIXTURE_DIR, name);
const read = (name: string) => fs.readFileSync(fixture(name), "utf8");
/** Each test imports into its own list, so files running at the same time never see its versions. */
const listName = () => testListName();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "screening-import-"));
const writeTmp = (name: string, text: string) => {
  const p = path.join(tmp, `${randomUUID().slice(0, 6)}-${name}`);
  fs.writeFileSync(p, text);
  return p;
};
/** The file with its line `n` (1-based) replaced. */
const withLine = (text: string, n: number, line: string) =>
  text
    .split("\n")
    .map((l, i) => (i === n - 1 ? line + (l.endsWith("\r") ? "\r" : "") : l))
    .join("\n");

async function state(list: string) {
  const db = await getDb();
  const versions = await db.screeningListVersion.findMany({ where: { list }, orderBy: { importedAt: "asc" } });
  const active = versions.find((v) => v.active) ?? null;
  const entries = active ? await db.screeningEntry.count({ where: { listVersionId: active.id } }) : 0;
  return { versions: versions.length, active, entries };
}

async function refusal(p: Promise<unknown>): Promise<ListFormatError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ListFormatError);
  return err as ListFormatError;
}

describe("screening list import", () => {
  it("imports the FollowTheMoney fixture from disk: Persons only, names, aliases, dates, countries, topics, keys", async () => {
    const db = await getDb();
    const list = listName();
    const res = await importListFiles(db, { format: "ftm", list, paths: [fixture("entities.ftm.json")], importedBy: "system:test" });
    expect(res).toMatchObject({ list, format: "ftm", unchanged: false, skipped: 2 });
    expect(res.entryCount).toBeGreaterThanOrEqual(60);
    const s = await state(list);
    expect(s).toMatchObject({ versions: 1, entries: res.entryCount });
    expect(s.active).toMatchObject({ id: res.listVersionId, versionHash: res.versionHash, entryCount: res.entryCount, format: "ftm" });
    expect(s.active!.fileHashes).toHaveLength(1);
    const ivan = await db.screeningEntry.findFirstOrThrow({ where: { listVersionId: res.listVersionId, externalId: "fx-ivan-petrenko" } });
    expect(ivan).toMatchObject({
      name: "Ivan Testovich Petrenko",
      birthDates: ["1961-04-12"],
      countries: ["UA"],
      topics: ["sanction"],
      programme: "FIXTURE-UKRAINE",
      aliases: ["Иван Петренко", "Ivan Petrenko"],
    });
    // The Cyrillic alias is stored transliterated, and every token has its retrieval keys.
    expect(ivan.normalizedNames).toEqual(["ivan testovich petrenko", "ivan petrenko"]);
    expect(ivan.nameKeys).toEqual(expect.arrayContaining(["m:PTRN", "s:ptrnk", "m:AFN"]));
    // Its words of three letters or more under "w:" keys, and filed under their deletions (symmetric deletion).
    expect(ivan.nameKeys).toEqual(expect.arrayContaining(["w:ivan", "w:testovich", "w:petrenko"]));
    const filed = await db.screeningWordDeletion.findMany({ where: { listVersionId: res.listVersionId, word: "ivan" } });
    expect(filed.map((d) => d.deletion).sort()).toEqual(["ivan", "ivn", "van", "ian", "iva"].sort());
    expect(
      await db.screeningKeyCount.findUnique({ where: { listVersionId_key: { listVersionId: res.listVersionId, key: "w:petrenko" } } }),
    ).toMatchObject({ entries: 1 });
    const maria = await db.screeningEntry.findFirstOrThrow({
      where: { listVersionId: res.listVersionId, externalId: "fx-maria-sandoval" },
    });
    expect(maria).toMatchObject({ name: "Maria Fictitia Sandoval", birthDates: ["1970-09-03"], countries: ["ES"], topics: ["role.pep"] });
    expect(await db.screeningEntry.count({ where: { listVersionId: res.listVersionId, schema: { not: "Person" } } })).toBe(0);
  });

  it("imports OFAC SDN.CSV + ALT.CSV from disk: individuals only, names reordered, DOB and nationality from Remarks, aliases", async () => {
    const db = await getDb();
    const list = listName();
    // ALT first: the files are told apart by their columns, not their order.
    const res = await importListFiles(db, {
      format: "ofac",
      list,
      paths: [fixture("ALT.CSV"), fixture("SDN.CSV")],
      importedBy: "system:test",
    });
    expect(res).toMatchObject({ unchanged: false, skipped: 2 });
    expect(res.fileHashes).toHaveLength(2);
    const ivan = await db.screeningEntry.findFirstOrThrow({ where: { listVersionId: res.listVersionId, name: "Ivan Testovich PETRENKO" } });
    expect(ivan).toMatchObject({
      birthDates: ["1961-04-12"],
      countries: ["UA"],
      topics: ["sanction"],
      programme: "UKRAINE-EO13660",
      aliases: ["I. PETRENKO"],
    });
    expect(await db.screeningEntry.count({ where: { listVersionId: res.listVersionId, name: { contains: "FIXTURE" } } })).toBe(0);
  });

  it("reads an OFAC file written in Windows-1252 (not UTF-8) with its accents intact", async () => {
    const db = await getDb();
    const sdn = path.join(tmp, `${randomUUID().slice(0, 6)}-SDN.CSV`);
    fs.writeFileSync(
      sdn,
      Buffer.from(
        '9801,"FIXTUREZ, Jos\xe9 Mar\xeda",individual,SDGT,-0-,-0-,-0-,-0-,-0-,-0-,-0-,"DOB 1970; nationality Spain;"\r\n',
        "latin1",
      ),
    );
    const res = await importListFiles(db, { format: "ofac", list: listName(), paths: [sdn], importedBy: "system:test" });
    const row = await db.screeningEntry.findFirstOrThrow({ where: { listVersionId: res.listVersionId } });
    expect(row).toMatchObject({
      name: "José María FIXTUREZ",
      normalizedNames: ["jose maria fixturez"],
      birthDates: ["1970"],
      countries: ["ES"],
    });
  });

  it("imports the account-labels fixture", async () => {
    const db = await getDb();
    const res = await importListFiles(db, {
      format: "labels",
      list: listName(),
      paths: [fixture("account-labels.csv")],
      importedBy: "system:test",
    });
    expect(res.entryCount).toBe(6);
    const row = await db.screeningAccountLabel.findFirstOrThrow({
      where: { listVersionId: res.listVersionId, chainAccount: "scamdrain.x" },
    });
    expect(row).toMatchObject({ labels: ["scam", "phishing"], score: 90 });
  });

  it("refuses a malformed FtM file naming the line, and leaves the active version and its entries as they were", async () => {
    const db = await getDb();
    const list = listName();
    await importListFiles(db, { format: "ftm", list, paths: [fixture("entities.ftm.json")], importedBy: "system:test" });
    const before = await state(list);
    const broken = writeTmp(
      "entities.ftm.json",
      withLine(read("entities.ftm.json"), 7, '{"id": "fx-bad", "schema": "Person", "properties": {"name": ['),
    );
    const err = await refusal(importListFiles(db, { format: "ftm", list, paths: [broken], importedBy: "system:test" }));
    expect(err.line).toBe(7);
    expect(err.file).toBe(path.basename(broken));
    expect(err.message).not.toContain("fx-bad");
    const noName = writeTmp(
      "entities.ftm.json",
      withLine(read("entities.ftm.json"), 3, '{"id": "fx-x", "schema": "Person", "properties": {"name": []}}'),
    );
    expect((await refusal(importListFiles(db, { format: "ftm", list, paths: [noName], importedBy: "system:test" }))).reason).toBe(
      "Person without a name",
    );
    expect(await state(list)).toEqual(before);
  });

  it("refuses malformed OFAC files (a short row, bad quoting, an alias of an unknown entry) naming file and line, changing nothing", async () => {
    const db = await getDb();
    const list = listName();
    await importListFiles(db, { format: "ofac", list, paths: [fixture("SDN.CSV"), fixture("ALT.CSV")], importedBy: "system:test" });
    const before = await state(list);
    const sdn = read("SDN.CSV");
    const cases: { files: string[]; file: string; line: number }[] = [];
    const shortRow = writeTmp("SDN.CSV", withLine(sdn, 5, '9555,"DOE, Fixture",individual,SDGT,-0-,-0-'));
    cases.push({ files: [shortRow, fixture("ALT.CSV")], file: path.basename(shortRow), line: 5 });
    const badQuote = writeTmp("SDN.CSV", withLine(sdn, 4, '9556,"DOE, "Fixture"x,individual,SDGT,-0-,-0-,-0-,-0-,-0-,-0-,-0-,-0-'));
    cases.push({ files: [badQuote, fixture("ALT.CSV")], file: path.basename(badQuote), line: 4 });
    const orphanAlt = writeTmp("ALT.CSV", withLine(read("ALT.CSV"), 2, '1234567,999,aka,"NOBODY, Fixture",-0-'));
    cases.push({ files: [fixture("SDN.CSV"), orphanAlt], file: path.basename(orphanAlt), line: 2 });
    for (const c of cases) {
      const err = await refusal(importListFiles(db, { format: "ofac", list, paths: c.files, importedBy: "system:test" }));
      expect({ file: err.file, line: err.line }).toEqual({ file: c.file, line: c.line });
    }
    expect(await state(list)).toEqual(before);
  });

  it("re-importing the same files changes nothing; different files become a new active version", async () => {
    const db = await getDb();
    const list = listName();
    const first = await importListFiles(db, { format: "ftm", list, paths: [fixture("entities.ftm.json")], importedBy: "system:test" });
    const again = await importListFiles(db, { format: "ftm", list, paths: [fixture("entities.ftm.json")], importedBy: "system:test" });
    expect(again).toMatchObject({ unchanged: true, listVersionId: first.listVersionId });
    const smaller = read("entities.ftm.json").split("\n").slice(0, 10).join("\n");
    const second = await importList(db, { format: "ftm", list, files: [{ name: "small.json", text: smaller }], importedBy: "system:test" });
    expect(second.unchanged).toBe(false);
    const s = await state(list);
    expect(s).toMatchObject({ versions: 2, entries: second.entryCount });
    expect(s.active!.id).toBe(second.listVersionId);
    // The old version stays (results point at its entries) but is inactive.
    expect(await db.screeningListVersion.findUniqueOrThrow({ where: { id: first.listVersionId } })).toMatchObject({ active: false });
  });

  it("replaces a list atomically: readers during a large import see the whole old list or the whole new one, never part", async () => {
    const db = await getDb();
    const list = listName();
    const old = await importListFiles(db, { format: "ftm", list, paths: [fixture("entities.ftm.json")], importedBy: "system:test" });
    const big = Array.from({ length: 6000 }, (_, i) =>
      JSON.stringify({
        id: `big-${i}`,
        schema: "Person",
        properties: { name: [`Fixture Person${i} Bulkname${i % 97}`], topics: ["sanction"] },
      }),
    ).join("\n");
    const seen = new Set<number>();
    let done = false;
    const importing = importList(db, { format: "ftm", list, files: [{ name: "big.json", text: big }], importedBy: "system:test" }).finally(
      () => {
        done = true;
      },
    );
    while (!done) {
      const [row] = await db.$queryRaw<{ n: bigint }[]>`
        SELECT count(e.id) AS n FROM screening_list_versions v JOIN screening_entries e ON e."listVersionId" = v.id
        WHERE v.list = ${list} AND v.active`;
      seen.add(Number(row!.n));
    }
    await importing;
    seen.add((await state(list)).entries);
    expect([...seen].every((n) => n === old.entryCount || n === 6000)).toBe(true);
    expect(seen.has(6000)).toBe(true);
  });

  it("keeps a large version's keys in a partition of its own and a small one's in the shared table; a failed or unchanged import leaves no table", async () => {
    const db = await getDb();
    // Key tables other than the default partition that name no version: what a failed or discarded import would leave.
    const orphanTables = async () =>
      (
        await db.$queryRaw<{ t: string }[]>`
          SELECT c.relname AS t FROM pg_class c
          WHERE c.relname LIKE 'screening\_entry\_keys\_%' AND c.relkind = 'r' AND c.relname <> 'screening_entry_keys_default'
            AND NOT EXISTS (SELECT 1 FROM screening_list_versions v WHERE c.relname = 'screening_entry_keys_' || replace(v.id::text, '-', ''))`
      ).map((r) => r.t);
    const partitions = async () =>
      (
        await db.$queryRaw<{ t: string }[]>`
          SELECT c.relname AS t FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'screening_entry_keys'::regclass ORDER BY 1`
      ).map((r) => r.t);
    const ownTable = (versionId: string) => `screening_entry_keys_${versionId.replace(/-/g, "")}`;
    const lines = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) =>
        JSON.stringify({ id: `${tag}-${i}`, schema: "Person", properties: { name: [`Partition${tag} Person${i} Keyname${i % 89}`] } }),
      );

    const large = await importList(db, {
      format: "ftm",
      list: listName(),
      files: [{ name: "l.json", text: lines(8000, "L").join("\n") }],
      importedBy: "test",
    });
    const [{ keyRows }] = await db.$queryRaw<[{ keyRows: number }]>`
      SELECT sum(cardinality("nameKeys"))::int AS "keyRows" FROM screening_entries WHERE "listVersionId" = ${large.listVersionId}::uuid`;
    expect(keyRows).toBeGreaterThanOrEqual(OWN_KEY_PARTITION_FROM);
    expect(await partitions()).toContain(ownTable(large.listVersionId));
    // Every key row is there, in the version's partition only, and read through the parent's key.
    const [{ own, all }] = await db.$queryRawUnsafe<[{ own: number; all: number }]>(
      `SELECT (SELECT count(*) FROM "${ownTable(large.listVersionId)}")::int AS own,
              (SELECT count(*) FROM screening_entry_keys WHERE "listVersionId" = '${large.listVersionId}')::int AS all`,
    );
    expect([own, all]).toEqual([keyRows, keyRows]);
    const entry = await db.screeningEntry.findFirstOrThrow({ where: { listVersionId: large.listVersionId, externalId: "L-4321" } });
    const found = await everySharingAKey(db, [large.listVersionId], entry.nameKeys.slice(0, 1));
    expect(found.map((r) => r.externalId)).toContain("L-4321");

    const small = await importList(db, {
      format: "ftm",
      list: listName(),
      files: [{ name: "s.json", text: lines(50, "S").join("\n") }],
      importedBy: "test",
    });
    const [{ shared }] = await db.$queryRaw<[{ shared: number }]>`
      SELECT count(*)::int AS shared FROM screening_entry_keys_default WHERE "listVersionId" = ${small.listVersionId}::uuid`;
    expect(shared).toBeGreaterThan(50);

    // An import refused at its last line, after chunks of entries and key rows were written (the
    // stream is parsed as it is read), and one identical to the active version: no table stays.
    const bad = [...lines(3000, "B"), "{not json"].join("\n");
    await expect(
      importFtmStream(db, { name: "b.json", list: listName(), importedBy: "test", open: () => Readable.from([bad]) }),
    ).rejects.toThrow(ListFormatError);
    const again = await importFtmStream(db, {
      name: "l.json",
      list: large.list,
      importedBy: "test",
      open: () => Readable.from([lines(8000, "L").join("\n")]),
    });
    expect(again.unchanged).toBe(true);
    expect(await orphanTables()).toEqual([]);
    expect(await partitions()).not.toContain(ownTable(small.listVersionId));
  });

  it("leaves the planner statistics of the new version fresh, so retrieval is planned for its size", async () => {
    const db = await getDb();
    const lines = Array.from({ length: 2_000 }, (_, i) =>
      JSON.stringify({ id: `s-${i}`, schema: "Person", properties: { name: [`Stat${i.toString(36)} Planner${(i * 7).toString(36)}`] } }),
    );
    const res = await importList(db, {
      format: "ftm",
      list: listName(),
      files: [{ name: "s.json", text: lines.join("\n") }],
      importedBy: "test",
    });
    // Rows the planner expects for the version against the rows it holds: unknown until ANALYZE
    // (estimated from the versions seen before), close once the import refreshed the statistics.
    for (const table of ["screening_entries", "screening_entry_keys", "screening_word_deletions"]) {
      const [plan] = await db.$queryRawUnsafe<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }[]>(
        `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${table} WHERE "listVersionId" = '${res.listVersionId}'::uuid`,
      );
      const [counted] = await db.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ${table} WHERE "listVersionId" = '${res.listVersionId}'::uuid`,
      );
      const n = counted!.n;
      expect(n, table).toBeGreaterThanOrEqual(2_000);
      expect(plan!["QUERY PLAN"][0].Plan["Plan Rows"], table).toBeGreaterThan(n / 3);
    }
  });

  it("two imports of one list at once leave exactly one active version", async () => {
    const db = await getDb();
    const list = listName();
    const text = read("entities.ftm.json").split("\n");
    await Promise.all([
      importList(db, { format: "ftm", list, files: [{ name: "a.json", text: text.slice(0, 20).join("\n") }], importedBy: "system:test" }),
      importList(db, { format: "ftm", list, files: [{ name: "b.json", text: text.slice(20, 40).join("\n") }], importedBy: "system:test" }),
    ]);
    const versions = await db.screeningListVersion.findMany({ where: { list } });
    expect(versions).toHaveLength(2);
    expect(versions.filter((v) => v.active)).toHaveLength(1);
  });

  it("an import inside a caller's transaction commits or rolls back with it", async () => {
    const db = await getDb();
    const list = listName();
    const labels = { format: "labels" as const, list, paths: [fixture("account-labels.csv")], importedBy: "system:test" };
    let importedInside = 0;
    await db
      .$transaction(async (tx) => {
        importedInside = (await importListFiles(tx, labels)).entryCount;
        throw new Error("caller rolls back");
      })
      .catch((e: Error) => {
        if (e.message !== "caller rolls back") throw e;
      });
    expect(importedInside).toBeGreaterThan(0);
    expect(await state(list)).toMatchObject({ versions: 0, active: null });
    await db.$transaction((tx) => importListFiles(tx, labels));
    expect((await state(list)).versions).toBe(1);
  });

  it("loads the sandbox fixture lists once, even when two instances ask at the same time", async () => {
    const db = await getDb();
    resetSandboxListsMemo();
    await Promise.all([ensureSandboxLists(db), ensureSandboxLists(db)]);
    resetSandboxListsMemo();
    await ensureSandboxLists(db);
    for (const list of Object.values(DEFAULT_LIST)) {
      const versions = await db.screeningListVersion.findMany({ where: { list } });
      expect(
        versions.filter((v) => v.active),
        list,
      ).toHaveLength(1);
      expect(
        versions.filter((v) => v.importedBy === "system:sandbox-fixtures"),
        list,
      ).toHaveLength(1);
    }
  });

  it("npm run screening:import imports from the command line and refuses a bad file with its line and exit code 1", async () => {
    const run = promisify(execFile);
    const list = listName();
    const ok = await run(
      process.execPath,
      [...entryArgs("scripts/screening-import.ts"), "--format", "labels", "--list", list, fixture("account-labels.csv")],
      { env: process.env },
    );
    expect(JSON.parse(ok.stdout)).toMatchObject({ list, format: "labels", entryCount: 6, unchanged: false });
    const bad = writeTmp("labels.csv", withLine(read("account-labels.csv"), 3, "Not An Account,scam,90"));
    const err = await run(process.execPath, [...entryArgs("scripts/screening-import.ts"), "--format", "labels", "--list", list, bad], {
      env: process.env,
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain(`${path.basename(bad)}:3: chain_account is not an Antelope account name`);
    expect((await state(list)).versions).toBe(1);
  }, 180_000);
});
