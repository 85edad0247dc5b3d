import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { entryArgs } from "@/server/testing/built-entries";
import { getDb } from "../src/server/db/client";
import { runExportJobs } from "../src/server/services/audit";
import { walletKey } from "../src/server/testing/factories";
import { client, createTestOrg, testServer } from "../src/server/testing/harness";
import { startInstance, stopInstance } from "../src/server/testing/instance";
import { boundAccount } from "../src/server/testing/kyc-flow";
import { createDatabase, dropDatabase } from "../src/server/testing/postgres";

const run = promisify(execFile);

/**
 * The restore drill of docs/operations.md ("Backup and restore"): a logical backup with pg_dump,
 * restored with pg_restore into an empty database, served by a new instance with the same keys,
 * ends with the organization's audit chain verified: the same number of entries and the same head.
 */
describe("backup and restore drill", () => {
  it("restores a pg_dump into an empty database on which the audit chain verifies, head for head", async () => {
    const { url } = await testServer();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    for (const name of ["backend", "reporting"]) expect((await api.post("/v1/admin/api-keys", { name })).status).toBe(201);
    expect((await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey })).status).toBe(201);
    const before = await api.post("/v1/compliance/audit/verify", {});
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ valid: true });
    expect(before.body.entries).toBeGreaterThanOrEqual(4);

    const source = process.env.DATABASE_URL!;
    const admin = inject("adminDatabaseUrl");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-restore-"));
    const dump = path.join(dir, "backup.dump");
    const name = `bi_restore_${process.pid}_${Date.now().toString(36)}`;
    let instance: Awaited<ReturnType<typeof startInstance>> | undefined;
    try {
      await run("pg_dump", ["--format=custom", "--no-owner", "--file", dump, source]);
      const restored = await createDatabase(admin, name);
      await run("pg_restore", ["--no-owner", "--exit-on-error", "--dbname", restored, dump]);
      instance = await startInstance({ DATABASE_URL: restored });
      const after = await client(instance.base, org.apiKey).post("/v1/compliance/audit/verify", {});
      expect(after.status).toBe(200);
      expect(after.body).toEqual({ valid: true, entries: before.body.entries, headHash: before.body.headHash });
    } finally {
      await stopInstance(instance);
      await dropDatabase(admin, name);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("erases again, after a restore, the people a later audit export records as erased (docs/data-protection.md, Operators)", async () => {
    const { url } = await testServer();
    const db = await getDb();
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(url, org.apiKey);
    expect((await api.put("/v1/admin/retention", { amlRetentionDays: 0 })).status).toBe(200);
    const from = new Date(Date.now() - 60_000);
    const { personDid } = await boundAccount(url, api);
    const personId = personDid.split(":").pop()!;

    const source = process.env.DATABASE_URL!;
    const admin = inject("adminDatabaseUrl");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-restore-erasure-"));
    const dump = path.join(dir, "backup.dump");
    const name = `bi_restore_erasure_${process.pid}_${Date.now().toString(36)}`;
    let restoredDb: pg.Client | undefined;
    try {
      // The backup, then the erasure, then the export that records it.
      await run("pg_dump", ["--format=custom", "--no-owner", "--file", dump, source]);
      expect((await api.post(`/v1/people/${encodeURIComponent(personDid)}/erase`, {})).status).toBe(200);
      const requested = await api.post("/v1/compliance/export", {
        from: from.toISOString(),
        to: new Date(Date.now() + 1000).toISOString(),
      });
      for (let i = 0; i < 20; i++) {
        await runExportJobs(db, { limit: 10, orgId: org.orgId });
        if ((await db.exportJob.findUniqueOrThrow({ where: { id: requested.body.jobId } })).status === "completed") break;
      }
      const exportFile = path.join(dir, "export.json");
      fs.writeFileSync(exportFile, JSON.stringify((await api.get(`/v1/compliance/export/${requested.body.jobId}`)).body.artifact));

      const restored = await createDatabase(admin, name);
      await run("pg_restore", ["--no-owner", "--exit-on-error", "--dbname", restored, dump]);
      restoredDb = new pg.Client({ connectionString: restored });
      await restoredDb.connect();
      const state = async () =>
        (
          await restoredDb!.query<{ erased: boolean; key: boolean; subject: boolean }>(
            `SELECT p."erasedAt" IS NOT NULL AS erased,
                    EXISTS (SELECT 1 FROM person_keys k WHERE k."personId" = p.id AND k."keySealed" IS NOT NULL) AS key,
                    EXISTS (SELECT 1 FROM screening_subjects s WHERE s."personId" = p.id) AS subject
             FROM people p WHERE p.id = $1`,
            [personId],
          )
        ).rows[0];
      // The backup brought her back.
      expect(await state()).toEqual({ erased: false, key: true, subject: true });
      const replay = () =>
        run(process.execPath, [...entryArgs("scripts/erasure-replay.ts"), "--export", exportFile], {
          env: { ...process.env, DATABASE_URL: restored },
        });
      expect(JSON.parse((await replay()).stdout.trim())).toEqual({ results: [{ personDid, result: "erased" }] });
      expect(await state()).toEqual({ erased: true, key: false, subject: false });
      expect(JSON.parse((await replay()).stdout.trim())).toEqual({ results: [{ personDid, result: "already_erased" }] });
    } finally {
      await restoredDb?.end();
      await dropDatabase(admin, name);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
