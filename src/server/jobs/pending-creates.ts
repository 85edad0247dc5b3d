import { recoverPendingCreates } from "../services/accounts";
import type { Job } from "./job";

/** Settles free creates interrupted between the chain call and their final commit (docs/decisions.md, "Write path"). */
export const pendingCreatesJob: Job = {
  name: "recover-pending-creates",
  everyMs: 30_000,
  run: (db) => recoverPendingCreates(db),
};
