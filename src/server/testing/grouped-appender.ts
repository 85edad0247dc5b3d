// A child process for the crash test of grouped audit appends: 16 writers append to one
// organization's chain through the group commit until the test kills the process, printing
// "ok" for every append acknowledged (committed).
import { getDb } from "../db/client";
import { appendAuditGrouped } from "../services/audit";

const orgId = process.argv[2]!;
const db = await getDb();
await Promise.all(
  Array.from({ length: 16 }, async (_, w) => {
    for (let i = 0; ; i++) {
      await appendAuditGrouped(db, orgId, { actor: "system:crash-test", input: { action: "test.killed", data: { w, i } } });
      process.stdout.write("ok\n");
    }
  }),
);
