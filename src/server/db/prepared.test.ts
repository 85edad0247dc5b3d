import { afterAll, describe, expect, inject, it } from "vitest";
import { walletKey } from "../testing/factories";
import { client, createTestOrg } from "../testing/harness";
import { type Instance, startInstance, stopInstance } from "../testing/instance";
import { type Pgbouncer, startPgbouncer } from "../testing/pgbouncer";
import { connectDb, getDb, Prisma, preparedName, rawQuery } from "./client";

// Statements sent by name (docs/performance.md, "Prepared statements"): on a session to
// PostgreSQL itself, a statement marked `prepare` is parsed and planned once per session; through
// a transaction pooler nobody told us about, the first name a server connection does not hold
// turns naming off and the statement runs unnamed, so no request fails.

/** The names every idle session of the pool holds, read from each session (all taken at once). */
async function namesHeld(): Promise<Map<string, string>> {
  const { pool } = await connectDb();
  const sessions = await Promise.all(Array.from({ length: pool!.idleCount }, () => pool!.connect()));
  try {
    const held = new Map<string, string>();
    for (const s of sessions) {
      const { rows } = await s.query<{ name: string; statement: string }>("SELECT name, statement FROM pg_prepared_statements");
      for (const r of rows) held.set(r.name, r.statement);
    }
    return held;
  } finally {
    for (const s of sessions) s.release();
  }
}

const lookup = (n: number) => Prisma.sql`SELECT ${n}::int + 1 AS next`;

let bouncer: Pgbouncer | undefined;
let inst: Instance | undefined;
afterAll(async () => {
  await stopInstance(inst);
  await bouncer?.stop();
});

describe("statements sent by name", () => {
  it("parses a statement marked prepare once per session and answers the values of each call; unmarked ones stay unnamed", async () => {
    const db = await getDb();
    const text = lookup(0).text;
    for (const n of [1, 2, 3]) expect(await rawQuery(db, lookup(n), { prepare: true })).toEqual([{ next: n + 1 }]);
    const name = preparedName(text)!;
    expect(name).toMatch(/^bi_[A-Za-z0-9_-]{24}$/);
    const held = await namesHeld();
    expect(held.get(name)).toBe(text);

    const unmarked = Prisma.sql`SELECT ${5}::int * 2 AS twice`;
    expect(await rawQuery(db, unmarked)).toEqual([{ twice: 10 }]);
    expect([...(await namesHeld()).values()]).not.toContain(unmarked.text);
  });

  it("runs a statement unnamed, and names nothing more, when a session no longer holds a name the pool thinks it parsed", async () => {
    const db = await getDb();
    const first = Prisma.sql`SELECT ${1}::int * 3 AS thrice`;
    expect(await rawQuery(db, first, { prepare: true })).toEqual([{ thrice: 3 }]);
    expect((await namesHeld()).has(preparedName(first.text)!)).toBe(true);
    // What a transaction pooler does: the next statement lands on a server session without the name.
    const { pool } = await connectDb();
    const sessions = await Promise.all(Array.from({ length: pool!.idleCount }, () => pool!.connect()));
    for (const s of sessions) await s.query("DEALLOCATE ALL");
    for (const s of sessions) s.release();

    expect(await rawQuery(db, Prisma.sql`SELECT ${7}::int * 3 AS thrice`, { prepare: true })).toEqual([{ thrice: 21 }]);
    expect(preparedName("SELECT 1")).toBeUndefined();
    expect(await rawQuery(db, Prisma.sql`SELECT ${2}::int * 4 AS quad`, { prepare: true })).toEqual([{ quad: 8 }]);
    expect((await namesHeld()).size).toBe(0);
  });
});

describe("statements sent by name, behind a pooler nobody named", () => {
  it("free creates all succeed through PgBouncer in transaction mode without BI_DATABASE_POOLED, and the instance says to set it", async () => {
    const direct = process.env.DATABASE_URL!;
    bouncer = await startPgbouncer(inject("adminDatabaseUrl"), { poolSize: 2 });
    inst = await startInstance({
      DATABASE_URL: bouncer.url(new URL(direct).pathname.slice(1)),
      DATABASE_MIGRATION_URL: direct,
      BI_AUTH_CACHE: "off",
      LOG_LEVEL: "warn",
    });
    const org = await createTestOrg({ plan: "institutional" });
    const api = client(inst.base, org.apiKey);
    const answers: { status: number; text: string }[] = [];
    const writer = async () => {
      for (let i = 0; i < 6; i++) answers.push(await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey }));
    };
    await Promise.all(Array.from({ length: 5 }, writer));
    expect(answers.filter((a) => a.status !== 201).map((a) => `${a.status} ${a.text}`)).toEqual([]);
    expect(answers).toHaveLength(30);
    expect(await (await getDb()).account.count({ where: { orgId: org.orgId } })).toBe(30);
    expect(inst.stdout).toContain("prepared statements off");
    expect(inst.stdout).toContain("BI_DATABASE_POOLED=true");

    // Told (BI_DATABASE_POOLED), an instance sends nothing by name through the pooler: no name to miss.
    await stopInstance(inst);
    inst = await startInstance({
      DATABASE_URL: bouncer.url(new URL(direct).pathname.slice(1)),
      DATABASE_MIGRATION_URL: direct,
      DATABASE_DIRECT_URL: direct,
      BI_DATABASE_POOLED: "true",
      LOG_LEVEL: "warn",
    });
    const told = client(inst.base, org.apiKey);
    const more: { status: number; text: string }[] = [];
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        for (let i = 0; i < 6; i++) more.push(await told.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey }));
      }),
    );
    expect(more.filter((a) => a.status !== 201).map((a) => `${a.status} ${a.text}`)).toEqual([]);
    expect(inst.stdout).not.toContain("prepared statements off");
  }, 120_000);
});
