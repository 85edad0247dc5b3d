/**
 * `tsx bench/build-chain.ts <database url> <organization id> <entries>`: buildChain in a process of
 * its own (bench/lib/audit.ts, buildChainApart; `npm run bench -- --build-apart`), so that the
 * process timing the verification idles meanwhile (docs/performance.md, "Slow processes").
 */
import pg from "pg";
import { buildChain } from "./lib/audit";

const [url, orgId, entries] = process.argv.slice(2);
const n = Number(entries);
if (!url || !orgId || !Number.isSafeInteger(n) || n < 1) {
  console.error("usage: tsx bench/build-chain.ts <database url> <organization id> <entries>");
  process.exit(2);
}
const admin = new pg.Client({ connectionString: url });
await admin.connect();
try {
  await buildChain(admin, orgId, n);
} finally {
  await admin.end();
}
