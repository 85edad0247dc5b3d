import { z } from "zod";

export const MonitoringFrequency = z.enum(["off", "daily", "weekly"]);

export const MonitoringSettingInput = z.strictObject({
  /** off: re-screen only when a list changes; daily / weekly: also everyone against every active list. */
  frequency: MonitoringFrequency,
});
export type MonitoringSettingInput = z.output<typeof MonitoringSettingInput>;

export const MonitoringSettingView = z.object({
  frequency: MonitoringFrequency,
  /** Null while the setting was never changed (off). */
  updatedBy: z.string().nullable(),
  updatedAt: z.iso.datetime().nullable(),
});

export const MonitoringRunView = z.object({
  runId: z.uuid(),
  /** list_change: after a list version became active, its new and changed entries only; periodic: every active list. */
  kind: z.enum(["list_change", "periodic"]),
  status: z.enum(["queued", "running", "completed", "failed"]),
  /** persons, then accounts, then done. */
  phase: z.enum(["persons", "accounts", "done"]),
  list: z.string().nullable(),
  listVersionId: z.uuid().nullable(),
  previousVersionId: z.uuid().nullable(),
  counts: z.object({
    /** New and changed entries (or account labels) of the list change; 0 for a periodic run. */
    changedEntries: z.int(),
    personsScreened: z.int(),
    /** People the run screens in all: for a finished run those it screened, else the approved people with an identity on file now. */
    personsTotal: z.int(),
    /** Approved people with no identity on file (approved before monitoring kept one): not re-screened. */
    personsSkipped: z.int(),
    accountsScreened: z.int(),
    /** New matches recorded (a match already reported, open or cleared, is not counted again). */
    hits: z.int(),
    casesOpened: z.int(),
  }),
  attempts: z.int(),
  error: z.string().nullable(),
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  completedAt: z.iso.datetime().nullable(),
});

export const MonitoringRunsView = z.object({ runs: z.array(MonitoringRunView) });
export const MonitoringRunsQuery = z.object({
  limit: z.coerce.number<string>().pipe(z.int().min(1).max(100)).default(20),
});
export type MonitoringRunsQuery = z.output<typeof MonitoringRunsQuery>;
export const MonitoringRunParams = z.object({ runId: z.string() });
