import type { Db, DbOrTx } from "./client";

/**
 * True for a transaction client. Prisma 7's transaction client still has `$transaction` (a nested
 * call would need savepoints, which the embedded database's adapter does not implement), but it
 * lacks `$connect`. Type imports only, so the offline verifiers can use modules that import this.
 */
export const isTransaction = (db: DbOrTx): boolean => typeof (db as Db).$connect !== "function";
