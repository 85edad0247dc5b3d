import { parseArgs } from "node:util";
import { z } from "zod";
import { env } from "../src/env";
import { connectDb, disconnectDb, migrateOnStart } from "../src/server/db/client";
import { callOperatorSocket } from "../src/server/operator-socket";
import { type Provisioned, provisionOrganization } from "../src/server/services/org";

// `npm run org:create -- --name NAME --email EMAIL [--plan builder]` prints one JSON line
// {organizationId, apiKey, consolePassword}; the key and password are shown this once.
const { values } = parseArgs({ options: { name: { type: "string" }, email: { type: "string" }, plan: { type: "string" } } });
const input = z
  .object({
    name: z.string().trim().min(2).max(120),
    email: z.email(),
    plan: z.enum(["builder", "growth", "institutional"]).default("builder"),
  })
  .safeParse(values);
if (!input.success) {
  console.error("usage: npm run org:create -- --name NAME --email EMAIL [--plan builder|growth|institutional]");
  for (const i of input.error.issues) console.error(`  --${i.path.join(".")}: ${i.message}`);
  process.exit(2);
}
const print = (out: Provisioned) =>
  console.log(JSON.stringify({ organizationId: out.organizationId, apiKey: out.apiKey, consolePassword: out.consolePassword }));

// A service running on the embedded database owns it: ask that process to do the work.
const viaRunning = env().DATABASE_URL ? null : await callOperatorSocket<Provisioned>("org:create", input.data);
if (viaRunning) {
  print(viaRunning);
} else {
  try {
    const conn = await connectDb();
    await migrateOnStart();
    print(await provisionOrganization(conn.prisma, input.data, { type: "system", label: "org-create" }));
  } finally {
    await disconnectDb();
  }
}
