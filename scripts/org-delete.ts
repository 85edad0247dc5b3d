import { parseArgs } from "node:util";
import { z } from "zod";
import { env } from "../src/env";
import { connectDb, disconnectDb, migrateOnStart } from "../src/server/db/client";
import { isAppError } from "../src/server/errors";
import { callOperatorSocket } from "../src/server/operator-socket";
import { type ErasureReceipt, eraseOrganization } from "../src/server/services/org";

// `npm run org:delete -- --org ID --name "EXACT NAME"` deletes every record of one organization
// (docs/operations.md, "Deleting an organization") and prints the receipt as one JSON line.
const { values } = parseArgs({ options: { org: { type: "string" }, name: { type: "string" } } });
const input = z.object({ org: z.uuid(), name: z.string().min(1) }).safeParse(values);
if (!input.success) {
  console.error('usage: npm run org:delete -- --org ORGANIZATION_ID --name "the organization\'s exact name"');
  for (const i of input.error.issues) console.error(`  --${i.path.join(".")}: ${i.message}`);
  process.exit(2);
}
const request = { organizationId: input.data.org, confirmName: input.data.name };

try {
  // A service running on the embedded database owns it: ask that process to do the work.
  let receipt = env().DATABASE_URL ? null : await callOperatorSocket<ErasureReceipt>("org:delete", request);
  if (!receipt) {
    try {
      const conn = await connectDb();
      await migrateOnStart();
      receipt = await eraseOrganization(conn.prisma, request);
    } finally {
      await disconnectDb();
    }
  }
  console.log(JSON.stringify(receipt));
} catch (err) {
  console.error(`org:delete: ${isAppError(err) || err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
