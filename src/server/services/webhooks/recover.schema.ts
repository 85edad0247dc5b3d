import { z } from "zod";

export const RecoverInput = z
  .strictObject({
    /** Deliveries created at or after this time. */
    since: z.iso.datetime({ offset: true }),
    /** Deliveries created before this time; default the time of the request. */
    until: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((r) => !r.until || Date.parse(r.until) > Date.parse(r.since), { message: "must be after since", path: ["until"] });
export type RecoverInput = z.output<typeof RecoverInput>;

export const RecoverJobParams = z.object({ id: z.uuid(), jobId: z.uuid() });

export const RecoverJobView = z.object({
  id: z.uuid(),
  webhookId: z.uuid(),
  since: z.iso.datetime(),
  until: z.iso.datetime(),
  /** queued → running → completed. */
  state: z.enum(["queued", "running", "completed"]),
  /** Failed and dead deliveries in the range when the job was created. */
  total: z.int(),
  /** Deliveries sent again so far (on completion: every one in the range that still needed it). */
  done: z.int(),
  /** Of those, delivered on that attempt (the others continue with the usual retries). */
  delivered: z.int(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
});

export const RecoverJobList = z.object({ jobs: z.array(RecoverJobView) });
