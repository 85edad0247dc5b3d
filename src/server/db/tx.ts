import type { Db, DbOrTx } from "./client";

/**
 * True for a transaction client. Prisma 7's transaction client still has `$transaction` (a nested
 * call would need savepoints, which the embedded database's adapter does not implement), but it
 * lacks `$connect`. Type imports only, so the offline verifiers can use modules that import this.
 */
export const isTransaction = (db: DbOrTx): boolean => typeof (db as Db).$connect !== "function";

type Results<T extends readonly (() => unknown)[]> = { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };

/**
 * Runs independent reads side by side on the pool, or one after another in a transaction. A
 * transaction is one connection, which runs one query at a time: reads started together there
 * only queued inside `pg`, which deprecates that (pg@9 refuses it), and gained nothing.
 */
export async function readAll<const T extends readonly (() => unknown)[]>(db: DbOrTx, reads: T): Promise<Results<T>> {
  if (!isTransaction(db)) return (await Promise.all(reads.map((read) => read()))) as Results<T>;
  const out: unknown[] = [];
  for (const read of reads) out.push(await read());
  return out as Results<T>;
}
