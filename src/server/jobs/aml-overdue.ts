import { notifyOverdueCases } from "../services/aml";
import type { Job } from "./job";

/** Emails the assignee and compliance officers once when an AML case passes its SLA deadline. */
export const amlOverdueJob: Job = {
  name: "aml-overdue",
  everyMs: 60_000,
  run: (db) => notifyOverdueCases(db, { limit: 50 }),
};
