// Preloaded into the server by `npm run bench` (node --import): counts every statement a pg
// client sends, i.e. every database round trip (BEGIN and COMMIT included), without any code in
// the service itself, so the same counting works on the code before and after a change.
// The bench reads the count with SIGUSR2; the answer is one stderr line.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.cwd(), "package.json"));
const pg = require("pg");
let count = 0;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  count++;
  return original.apply(this, args);
};
process.on("SIGUSR2", () => process.stderr.write(`BENCH_DB_QUERIES ${count}\n`));
