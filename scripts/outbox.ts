import { parseArgs } from "node:util";
import { env } from "../src/env";
import { connectDb, disconnectDb } from "../src/server/db/client";
import { callOperatorSocket } from "../src/server/operator-socket";
import { listOutbox, type OutboxEntry, OutboxQuery } from "../src/server/providers/messaging/dev-outbox";

// `npm run outbox [-- --to ADDRESS] [--limit N]` prints the newest messages the dev outbox holds
// (emails and SMS the service would have sent had a provider been configured), newest first.
const { values } = parseArgs({ options: { to: { type: "string" }, limit: { type: "string" } } });
const query = OutboxQuery.safeParse(values);
if (!query.success) {
  console.error("usage: npm run outbox [-- --to ADDRESS] [--limit N]   (N from 1 to 500, default 20)");
  for (const i of query.error.issues) console.error(`  --${i.path.join(".")}: ${i.message}`);
  process.exit(2);
}

type Row = Omit<OutboxEntry, "createdAt"> & { createdAt: Date | string };

function print(rows: Row[]) {
  if (!rows.length) {
    console.log(query.data?.to ? `No messages to ${query.data.to} in the dev outbox.` : "The dev outbox is empty.");
    return;
  }
  for (const r of rows) {
    console.log(`${new Date(r.createdAt).toISOString()}  ${r.channel === "phone" ? "sms  " : "email"}  to ${r.to}`);
    if (r.subject) console.log(`  Subject: ${r.subject}`);
    for (const line of r.body.split(/\r?\n/)) console.log(`  ${line}`);
    console.log("");
  }
}

async function viaRunningService(): Promise<Row[] | null> {
  try {
    return await callOperatorSocket<Row[]>("outbox:list", query.data);
  } catch (err) {
    // The embedded database admits one process: opening it beside the service would corrupt it.
    console.error(
      (err as Error).message === "unknown command"
        ? "The service is running on the embedded database, which only it may open, and it does not answer outbox requests.\n" +
            "Stop the service, run `npm run outbox` again, then start the service."
        : `The running service could not list the dev outbox: ${(err as Error).message}`,
    );
    process.exit(1);
  }
}

const running = env().DATABASE_URL ? null : await viaRunningService();
if (running) {
  print(running);
} else {
  try {
    const conn = await connectDb();
    print(await listOutbox(conn.prisma, query.data));
  } catch (err) {
    const code = (err as { code?: string }).code;
    console.error(
      code === "P2021"
        ? "The database has no dev outbox table yet: run `npm run db:migrate` (or start the service once)."
        : `Could not read the dev outbox: ${(err as Error).message.split("\n")[0]}`,
    );
    process.exitCode = 1;
  } finally {
    await disconnectDb();
  }
}
