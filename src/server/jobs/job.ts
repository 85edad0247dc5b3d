import type { Db } from "../db/client";

/** A background task run every `everyMs` in the app process (or in `npm run worker`). */
export type Job = {
  name: string;
  everyMs: number;
  run: (db: Db) => Promise<unknown>;
  /** Work a run started but did not wait for (webhook attempts in flight), awaited on stop. */
  stop?: () => Promise<void>;
};
