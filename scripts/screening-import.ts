import { parseArgs } from "node:util";
import { env } from "../src/env";
import { connectDb, disconnectDb, migrateOnStart } from "../src/server/db/client";
import { callOperatorSocket } from "../src/server/operator-socket";
import { importListFiles, ListFormatError } from "../src/server/services/screening";

// `npm run screening:import -- --format ftm|ofac|labels [--list NAME] FILE…` imports one version of a
// screening list and makes it active in one transaction. A malformed file is refused with its file
// name and line; the active list then stays as it was. Prints one JSON line on success.
const USAGE = "usage: npm run screening:import -- --format ftm|ofac|labels [--list NAME] FILE…";
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { format: { type: "string" }, list: { type: "string" } },
});
const format = values.format;
if ((format !== "ftm" && format !== "ofac" && format !== "labels") || positionals.length === 0) {
  console.error(USAGE);
  process.exit(2);
}
if (values.list !== undefined && !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(values.list)) {
  console.error("--list must be 1–64 characters of a-z, 0-9, '.', '_' or '-'");
  process.exit(2);
}

if (!env().DATABASE_URL) {
  // The embedded database admits one process; importing beside a running service would corrupt it.
  const running = await callOperatorSocket<unknown>("ping", {}).catch(() => "running");
  if (running !== null) {
    console.error("The service is running on the embedded database, which only it may open. Stop it, import, then start it again.");
    process.exit(1);
  }
}

try {
  await migrateOnStart();
  const conn = await connectDb();
  const result = await importListFiles(conn.prisma, {
    format,
    list: values.list,
    paths: positionals,
    importedBy: "system:screening-import",
  });
  console.log(JSON.stringify(result));
} catch (err) {
  if (err instanceof ListFormatError) console.error(`Refused, nothing changed: ${err.message}`);
  else console.error(`Import failed, nothing changed: ${(err as Error).message.split("\n")[0]}`);
  process.exitCode = 1;
} finally {
  await disconnectDb();
}
