import { createRequire } from "node:module";
import { Prisma } from "../db/client";

type PlanNode = Record<string, unknown>;
type Queryable = { $queryRaw<T = unknown>(query: Prisma.Sql): Promise<T> };

/** Every node of an `EXPLAIN (FORMAT JSON)` answer's plan, in plan order. */
function planNodes(explained: unknown): PlanNode[] {
  const nodes: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    nodes.push(n);
    for (const c of (n.Plans as PlanNode[] | undefined) ?? []) walk(c);
  };
  walk((explained as { Plan: PlanNode }[])[0]!.Plan);
  return nodes;
}

/**
 * Runs `EXPLAIN (ANALYZE, FORMAT JSON)` of `query` and returns every node of its plan that reads
 * through the index `indexName` ("Actual Rows", "Rows Removed by Filter" and the rest as
 * PostgreSQL names them), and the whole plan as text for a failure's message.
 */
export async function indexNodes(db: Queryable, query: Prisma.Sql, indexName: string): Promise<{ nodes: PlanNode[]; plan: string }> {
  const [row] = await db.$queryRaw<{ "QUERY PLAN": unknown }[]>(Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`);
  return { nodes: planNodes(row!["QUERY PLAN"]).filter((n) => n["Index Name"] === indexName), plan: JSON.stringify(row) };
}

/**
 * Runs `fn` and returns `EXPLAIN (ANALYZE, FORMAT JSON)` of every read it sent through `pg` (the
 * ORM's included; statements that write, and reads FOR UPDATE, are left out), run again afterwards with the same values
 * on a session of the test's own: for code whose SQL the ORM writes. Each plan's nodes are flattened, in plan order.
 * `writes`: UPDATE and DELETE statements are explained too (run again, then rolled back).
 */
export async function plansOf(
  fn: () => Promise<unknown>,
  opts: { writes?: boolean } = {},
): Promise<{ text: string; nodes: PlanNode[]; plan: string }[]> {
  const pg = createRequire(import.meta.url)("pg") as typeof import("pg");
  const original = pg.Client.prototype.query;
  const sent: { text: string; values: unknown[] }[] = [];
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; values?: unknown[] };
    if (typeof q === "string") sent.push({ text: q, values: (args[1] as unknown[] | undefined) ?? [] });
    else if (q?.text) sent.push({ text: q.text, values: q.values ?? [] });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = original;
  }
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const out: { text: string; nodes: PlanNode[]; plan: string }[] = [];
    // Reads only (`writes`: UPDATE and DELETE statements too), each run in a transaction rolled back.
    const wanted = (text: string) =>
      (/^\s*(SELECT|WITH)\b/i.test(text) && !/\b(INSERT|UPDATE|DELETE)\b/i.test(text)) ||
      (opts.writes === true && /^\s*(UPDATE|DELETE)\b/i.test(text));
    for (const s of sent.filter((x) => wanted(x.text))) {
      await client.query("BEGIN");
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${s.text}`, s.values).finally(() => client.query("ROLLBACK"));
      out.push({ text: s.text, nodes: planNodes(rows[0]["QUERY PLAN"]), plan: JSON.stringify(rows[0]) });
    }
    return out;
  } finally {
    await client.end();
  }
}

/** Rows a plan's nodes on `table` read: returned, and read then dropped by a filter. */
export const rowsRead = (nodes: PlanNode[], table: string): number =>
  nodes
    .filter((n) => n["Relation Name"] === table)
    .reduce(
      (sum, n) => sum + (Number(n["Actual Rows"] ?? 0) + Number(n["Rows Removed by Filter"] ?? 0)) * Number(n["Actual Loops"] ?? 1),
      0,
    );
