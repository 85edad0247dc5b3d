import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { applyMigrations, readMigrations, type SqlExecutor } from "../../db/migrate";
import { createDatabase, dropDatabase } from "../../testing/postgres";
import { entryHash, GENESIS_HASH, type HashFields } from "./chain";
import { ChainChecker, ENTRY_COLUMNS, type EntryRow } from "./verify";

// Migration 20261128220000_audit_hashed_bytes stores each existing entry's hashed bytes and makes
// every hashed column generated from them: the columns must read back exactly as before (data's
// text byte for byte), every entry's hash stay the same, and the chain verify as it did, a
// tampered entry included.

const MIGRATION = "20261128220000_audit_hashed_bytes";
const adminUrl = inject("adminDatabaseUrl");
const made: string[] = [];
afterAll(async () => {
  for (const name of made) await dropDatabase(adminUrl, name);
});

const executor = (c: pg.Client): SqlExecutor => ({
  query: async (text, params) => (await c.query(text, params as unknown[])).rows,
  exec: async (text) => void (await c.query(text)),
});

const COLUMNS = `${ENTRY_COLUMNS}, "orgId"::text`;

describe(`migration ${MIGRATION}`, () => {
  it("keeps every column, every hash and the chain's verification of entries written before it", async () => {
    const name = `bi_audit_bytes_${randomBytes(5).toString("hex")}`;
    made.push(name);
    const c = new pg.Client({ connectionString: await createDatabase(adminUrl, name) });
    await c.connect();
    try {
      const migrations = readMigrations();
      const at = migrations.findIndex((m) => m.name === MIGRATION);
      expect(at).toBeGreaterThan(0);
      await applyMigrations(executor(c), migrations.slice(0, at));
      const orgId = randomUUID();
      await c.query(`INSERT INTO organizations (id, name, "consolePasswordHash", "updatedAt") VALUES ($1, 'Before', 'x', now())`, [orgId]);
      const specs: Omit<HashFields, "orgId" | "seq" | "prevHash">[] = [
        {
          actor: "system:test",
          action: "test.step",
          subjectType: "step",
          subject: "1",
          data: { i: 1 },
          createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 1)),
        },
        {
          actor: 'member:"quoted"\\',
          action: "test.é😀\n\t\u0001",
          subjectType: null,
          subject: null,
          data: {},
          createdAt: new Date(Date.UTC(2026, 0, 2)),
        },
        {
          actor: "system:test",
          action: "test.legacy",
          subjectType: "x",
          subject: "\u2028",
          data: { b: [1, 2.5, "é"], a: { z: null, y: true } },
          createdAt: new Date(Date.UTC(2026, 0, 3, 4, 5, 6, 789)),
        },
        {
          actor: "system:test",
          action: "test.step",
          subjectType: "step",
          subject: "4",
          data: { n: 1e21, s: "</>" },
          createdAt: new Date(Date.UTC(2026, 0, 4)),
        },
        {
          actor: "system:test",
          action: "test.tampered",
          subjectType: "step",
          subject: "5",
          data: { i: 5 },
          createdAt: new Date(Date.UTC(2026, 0, 5)),
        },
      ];
      let prevHash = GENESIS_HASH;
      for (const [i, s] of specs.entries()) {
        const fields: HashFields = { ...s, orgId, seq: i + 1, prevHash };
        const hash = entryHash(fields);
        // Entry 3 as written before data kept its JCS text (jsonb's form); entry 5 changed after it was hashed.
        const dataSql = i === 2 ? "($8::jsonb)::json" : "$8::json";
        const data = i === 4 ? jcs({ i: 6 }) : jcs(s.data);
        await c.query(
          `INSERT INTO audit_entries (id, "orgId", seq, actor, action, "subjectType", subject, data, "createdAt", "prevHash", hash)
           VALUES ($1, $2, $3, $4, $5, $6, $7, ${dataSql}, $9::timestamptz, $10, $11)`,
          [randomUUID(), orgId, i + 1, s.actor, s.action, s.subjectType, s.subject, data, s.createdAt.toISOString(), prevHash, hash],
        );
        prevHash = hash;
      }
      const read = async () =>
        (await c.query<[...EntryRow, string]>({ text: `SELECT ${COLUMNS} FROM audit_entries ORDER BY seq`, rowMode: "array" })).rows;
      const before = await read();
      expect(before[2]![9]).toContain(": "); // jsonb's text form
      const walk = (rows: [...EntryRow, string][]) => new ChainChecker(orgId).check(rows.map((r) => r.slice(0, 10) as EntryRow));

      await applyMigrations(executor(c), migrations.slice(at));

      const after = await read();
      expect(after).toEqual(before);
      expect(walk(after)).toEqual(walk(before));
      expect(walk(after)).toMatchObject({ valid: false, entries: 4, firstInvalidEntryId: before[4]![0] });
      const stored = (await c.query<{ canonical: string; hash: string }>(`SELECT canonical, hash FROM audit_entries ORDER BY seq`)).rows;
      // The stored bytes are the hashed bytes, but for the entry from before JCS text (checked by meaning) and the tampered one.
      expect(stored.map((r) => sha256Hex(r.canonical) === r.hash)).toEqual([true, true, false, true, false]);
    } finally {
      await c.end();
    }
  });
});
