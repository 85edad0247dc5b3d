import { createRequire } from "node:module";

/**
 * Background statements of the process that may land in the window and are no request's own:
 * the auth cache's LISTEN and the batched rate-limit flush (every 250 ms, for all requests).
 */
const BACKGROUND = /^(LISTEN |UNLISTEN )|^INSERT INTO rate_limit_windows .* FROM unnest\(\$1::text\[\], \$2::float8\[\], \$3::int/;

/**
 * Counts the statements every pg client of this process sends while `fn` runs (BEGIN and COMMIT
 * included), leaving out the process's background statements: the database round trips of a
 * request served in-process. Run one request at a time.
 */
export async function countRoundTrips<T>(fn: () => Promise<T>): Promise<{ value: T; count: number; statements: string[] }> {
  const pg = createRequire(import.meta.url)("pg") as typeof import("pg");
  const original = pg.Client.prototype.query;
  let count = 0;
  const statements: string[] = [];
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    const text = (typeof q === "string" ? q : (q?.text ?? "")).replace(/\s+/g, " ").trim();
    if (!BACKGROUND.test(text)) count++;
    statements.push(text.slice(0, 160));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const value = await fn();
    return { value, count, statements };
  } finally {
    pg.Client.prototype.query = original;
  }
}
