import { Prisma } from "../db/client";

type PlanNode = Record<string, unknown>;
type Queryable = { $queryRaw<T = unknown>(query: Prisma.Sql): Promise<T> };

/**
 * Runs `EXPLAIN (ANALYZE, FORMAT JSON)` of `query` and returns every node of its plan that reads
 * through the index `indexName` ("Actual Rows", "Rows Removed by Filter" and the rest as
 * PostgreSQL names them), and the whole plan as text for a failure's message.
 */
export async function indexNodes(db: Queryable, query: Prisma.Sql, indexName: string): Promise<{ nodes: PlanNode[]; plan: string }> {
  const [row] = await db.$queryRaw<{ "QUERY PLAN": unknown }[]>(Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`);
  const nodes: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    nodes.push(n);
    for (const c of (n.Plans as PlanNode[] | undefined) ?? []) walk(c);
  };
  walk((row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan);
  return { nodes: nodes.filter((n) => n["Index Name"] === indexName), plan: JSON.stringify(row) };
}
