import { connectDb, disconnectDb, migrateOnStart } from "../src/server/db/client";
import { migratePersonData } from "../src/server/services/people";

// `npm run person-data:migrate`: re-seals, under each person's own data key, the personal values
// written before person keys existed, and seals those written in clear before they were sealed
// (what officers wrote on a person's AML cases, KYC sessions' client addresses, provider references
// and links, verified phones, accounts' contacts, the addresses of one-time codes and proof tokens,
// and risk events' addresses and device fingerprints as keyed hashes),
// printing its progress after each batch (one JSON line each) and what is
// left at the end (docs/data-protection.md, "Crypto-shredding"). The worker does the same on its
// own; this runs it to the end at once. Safe while the service serves.
try {
  const conn = await connectDb();
  await migrateOnStart();
  const done = await migratePersonData(conn.prisma, { onBatch: (p) => console.log(JSON.stringify({ progress: p })) });
  console.log(JSON.stringify({ done }));
} catch (err) {
  console.error(`person-data:migrate: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await disconnectDb();
}
