import pg from "pg";
import { describe, expect, it } from "vitest";
import { nameMaker, rng } from "../../../../bench/lib/names";
import { getDb } from "../../db/client";
import { serviceCtx } from "../../testing/aml";
import { createTestOrg } from "../../testing/harness";
import { testListName } from "../../testing/screening-lists";
import { importList } from "./import";
import { KEY_INDEX_PREFIX, keyIndexName, syncKeyIndexes } from "./key-index";
import { uploadOrgList } from "./upload";

// The key arrays' index of each large active version (key-index.ts): built after the import that
// activates the version, dropped once another version replaces it, built again when missing.

/** `n` generated people as FtM JSON lines. */
function people(n: number, seed: number): string {
  const make = nameMaker(rng(seed));
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `p-${seed}-${i}`, schema: "Person", properties: { name: [make()], topics: ["sanction"] } }),
  ).join("\n");
}

async function indexes() {
  const db = await getDb();
  const rows = await db.$queryRaw<{ name: string; valid: boolean; def: string }[]>`
    SELECT c.relname AS name, i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS def
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = 'screening_entries'::regclass AND starts_with(c.relname, ${KEY_INDEX_PREFIX})`;
  return new Map(rows.map((r) => [r.name, r]));
}

describe("the key arrays' index of large versions", () => {
  it("is built for the active large version, moves to the version replacing it, and is built again when missing", async () => {
    const db = await getDb();
    const list = testListName("key-index");
    // 7,000 people hold over 50,000 keys: a version with a key partition of its own.
    const first = await importList(db, { format: "ftm", list, files: [{ name: "a.json", text: people(7_000, 1) }], importedBy: "test" });
    const small = await importList(db, {
      format: "ftm",
      list: testListName("key-index-small"),
      files: [{ name: "s.json", text: people(50, 2) }],
      importedBy: "test",
    });
    let now = await indexes();
    expect(now.get(keyIndexName(first.listVersionId))).toMatchObject({ valid: true });
    expect(now.get(keyIndexName(first.listVersionId))!.def).toContain(`WHERE ("listVersionId" = '${first.listVersionId}'::uuid)`);
    expect(now.has(keyIndexName(small.listVersionId))).toBe(false);

    const second = await importList(db, { format: "ftm", list, files: [{ name: "b.json", text: people(7_000, 3) }], importedBy: "test" });
    now = await indexes();
    expect(now.get(keyIndexName(second.listVersionId))).toMatchObject({ valid: true });
    // The replaced version is kept (replays, diffs) but no longer screened: its index is gone.
    expect(now.has(keyIndexName(first.listVersionId))).toBe(false);
    expect(await db.screeningEntry.count({ where: { listVersionId: first.listVersionId } })).toBe(7_000);

    // An index lost (an interrupted build, an operator's DROP) is built again by the next sync.
    await db.$executeRawUnsafe(`DROP INDEX "${keyIndexName(second.listVersionId)}"`);
    await syncKeyIndexes();
    expect((await indexes()).get(keyIndexName(second.listVersionId))).toMatchObject({ valid: true });
  }, 120_000);
});

describe("an organization's upload of a large list", () => {
  it("answers before its index is built: the build waits for an import in progress, the request does not", async () => {
    const org = await createTestOrg();
    const ctx = await serviceCtx(org.db, org.orgId, { type: "member", email: "officer@example.test", role: "compliance_officer" });
    // A transaction open from before the upload that writes entries, as another list's import does:
    // a concurrent build waits for it to end.
    const older = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await older.connect();
    try {
      await older.query("BEGIN");
      await older.query("LOCK TABLE screening_entries IN ROW EXCLUSIVE MODE");
      const text = people(7_000, 5);
      const uploaded = await uploadOrgList(ctx, {
        format: "ftm",
        list: `own-${Date.now().toString(36)}`,
        files: [{ name: "own.json", contentBase64: Buffer.from(text).toString("base64") }],
      });
      expect(uploaded).toMatchObject({ entryCount: 7_000, unchanged: false });
      const name = keyIndexName(uploaded.listVersionId);
      expect((await indexes()).get(name)?.valid ?? false).toBe(false);
      await older.query("COMMIT");
      // Then the build goes on to the end.
      const until = Date.now() + 60_000;
      while (!(await indexes()).get(name)?.valid && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      expect((await indexes()).get(name)).toMatchObject({ valid: true });
    } finally {
      await older.end();
    }
  }, 120_000);
});
