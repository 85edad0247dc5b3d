/**
 * Prints a before/after table of two `npm run bench` JSON results (docs/performance.md):
 *   npx tsx bench/compare.ts bench/results/before-….json bench/results/after-….json
 */
import fs from "node:fs";
import { goals, type Report } from "./lib/report";

const [beforeFile, afterFile] = process.argv.slice(2);
if (!beforeFile || !afterFile) throw new Error("usage: bench/compare.ts BEFORE.json AFTER.json");
const before = JSON.parse(fs.readFileSync(beforeFile, "utf8")) as Report;
const after = JSON.parse(fs.readFileSync(afterFile, "utf8")) as Report;

console.log("| run | before rps | after rps | before db round trips / req | after db round trips / req |");
console.log("|---|---:|---:|---:|---:|");
for (const k of Object.keys(after.http).concat(Object.keys(after.scaling))) {
  const a = after.http[k] ?? after.scaling[k]!;
  const b = before.http[k] ?? before.scaling[k];
  console.log(`| ${k}: ${a.name} | ${b?.rps ?? "-"} | ${a.rps} | ${b?.dbPerRequest ?? "-"} | ${a.dbPerRequest ?? "-"} |`);
}
console.log("\n| goal | before | after | target | met after |");
console.log("|---|---|---|---|---|");
const gb = new Map(goals(before).map((g) => [g.goal, g]));
for (const g of goals(after))
  console.log(`| ${g.goal} | ${gb.get(g.goal)?.measured ?? "-"} | ${g.measured} | ${g.target} | ${g.met ? "yes" : "NO"} |`);
