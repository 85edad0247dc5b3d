import fs from "node:fs";
import { parseArgs } from "node:util";
import { env } from "../src/env";
import { connectDb, disconnectDb, migrateOnStart } from "../src/server/db/client";
import { callOperatorSocket } from "../src/server/operator-socket";
import { erasedInExport, replayErasures } from "../src/server/services/people";

// `npm run erasure:replay -- [--export FILE]... [PERSON_DID]...`: after restoring a backup, erases
// again every person erased since the backup was taken (docs/data-protection.md, "Operators"),
// named by DID or id, or read from signed audit exports (their `person.erased` entries). Prints
// one JSON line: each person and what was done.
const { values, positionals } = parseArgs({ options: { export: { type: "string", multiple: true } }, allowPositionals: true });
let personDids: string[];
try {
  personDids = [
    ...new Set([...(values.export ?? []).flatMap((f) => erasedInExport(JSON.parse(fs.readFileSync(f, "utf8")))), ...positionals]),
  ];
} catch (err) {
  console.error(`erasure:replay: ${(err as Error).message}`);
  process.exit(2);
}
if (!personDids.length) {
  console.error("usage: npm run erasure:replay -- [--export AUDIT_EXPORT.json]... [PERSON_DID]...");
  process.exit(2);
}

try {
  // A service running on the embedded database owns it: ask that process to do the work.
  let results = env().DATABASE_URL
    ? null
    : await callOperatorSocket<Awaited<ReturnType<typeof replayErasures>>>("erasure:replay", { personDids });
  if (!results) {
    try {
      const conn = await connectDb();
      await migrateOnStart();
      results = await replayErasures(conn.prisma, personDids);
    } finally {
      await disconnectDb();
    }
  }
  console.log(JSON.stringify({ results }));
} catch (err) {
  console.error(`erasure:replay: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
