import { createRequire } from "node:module";

/**
 * Counts the statements every pg client of this process sends while `fn` runs (BEGIN and COMMIT
 * included): the database round trips of a request served in-process. Run one request at a time.
 */
export async function countRoundTrips<T>(fn: () => Promise<T>): Promise<{ value: T; count: number; statements: string[] }> {
  const pg = createRequire(import.meta.url)("pg") as typeof import("pg");
  const original = pg.Client.prototype.query;
  let count = 0;
  const statements: string[] = [];
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    count++;
    const q = args[0] as string | { text?: string };
    statements.push((typeof q === "string" ? q : (q?.text ?? "")).replace(/\s+/g, " ").slice(0, 160));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const value = await fn();
    return { value, count, statements };
  } finally {
    pg.Client.prototype.query = original;
  }
}
