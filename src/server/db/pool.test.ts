import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectDb } from "./client";

// The pool keeps two sessions past its 10 s idle timeout (client.ts): a request after a quiet
// spell finds a session whose backend has already run, and idle sessions never keep a process up.

const backend = async (c: { query(text: string): Promise<{ rows: { pid: number }[] }> }) =>
  (await c.query("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;

describe("the pool's idle sessions", () => {
  it("keeps two sessions past the idle timeout, and the next requests run on their backends", async () => {
    const { pool } = await connectDb();
    const taken = await Promise.all([pool!.connect(), pool!.connect(), pool!.connect()]);
    const before = await Promise.all(taken.map(backend));
    for (const c of taken) c.release();
    await new Promise((r) => setTimeout(r, 10_500));
    expect(pool!.totalCount).toBe(2);
    expect(pool!.idleCount).toBe(2);
    const again = await Promise.all([pool!.connect(), pool!.connect()]);
    const after = await Promise.all(again.map(backend));
    for (const c of again) c.release();
    expect(before).toEqual(expect.arrayContaining(after));
    expect(new Set(after).size).toBe(2);
  }, 20_000);

  it("lets a process end while its idle sessions are open", () => {
    // Without allowExitOnIdle the kept sessions would hold this process up for good; with min 0
    // it would end only when the idle timeout closed them, after 10 s.
    const script = `import { getDb } from ${JSON.stringify(path.resolve(__dirname, "client.ts"))};
      const db = await getDb();
      await db.$queryRawUnsafe("SELECT 1");
      console.log("queried");`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, BI_RUN_JOBS: "false" },
      encoding: "utf8",
      timeout: 8_000,
    });
    expect(run.signal).toBeNull();
    expect(run.stdout).toContain("queried");
    expect(run.status).toBe(0);
  }, 20_000);
});
