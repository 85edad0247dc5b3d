import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { describe, expect, inject, it } from "vitest";
import { walletKey } from "../src/server/testing/factories";
import { client, createTestOrg, testServer } from "../src/server/testing/harness";
import { startInstance, stopInstance } from "../src/server/testing/instance";
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
});
