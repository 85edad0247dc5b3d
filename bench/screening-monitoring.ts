/**
 * `npm run bench:monitoring`: the time to re-screen 100,000 approved people against a list change
 * of 1,000 entries (a list of 10,000 people replaced by one with 1,000 more), the way the
 * screening-monitor job does it: the change's retrieval keys indexed in memory, people streamed in
 * batches of 1,000, only candidates scored, each batch committed with its cursor. People are kept
 * as KYC approval keeps them (the identity sealed under their own data key). Some of the new
 * entries are people on file, so the time includes opening their cases. Runs on a throwaway
 * PostgreSQL database (found as the tests find one), seeded with bulk SQL, dropped at the end.
 * Flags: --people N (default 100000), --changed N (default 1000; the goal's case is --people
 * 1000000 --changed 10000), --json FILE (also write the figures there), --hits FILE (write every
 * person's new matches, one "person number, external id, score" line each, sorted: two runs of
 * the same flags on different code must write the same file), --cpu-prof FILE (a CPU profile of
 * the re-screen alone, for Chrome DevTools), --scoring-threads N (threads scoring parts of each page
 * beside the main one; 0 scores every page on the main thread). The load average is printed beside the figures, and
 * this process's peak resident memory during the re-screen.
 */

import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { throwawayDatabase } from "./lib/db";
import { nameMaker, rng } from "./lib/names";

const argv = process.argv.slice(2);
const flag = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const PEOPLE = flag("--people", 100_000);
const CHANGED = flag("--changed", 1_000);
const BASE = 10_000;
const jsonArg = argv.indexOf("--json");
const JSON_FILE = jsonArg >= 0 ? argv[jsonArg + 1] : undefined;
const hitsArg = argv.indexOf("--hits");
const HITS_FILE = hitsArg >= 0 ? argv[hitsArg + 1] : undefined;
const profArg = argv.indexOf("--cpu-prof");
const PROF_FILE = profArg >= 0 ? argv[profArg + 1] : undefined;
/** --scoring-threads N: threads scoring parts of each page beside the main one (0: none; default: the job's own choice). */
const threadsArg = argv.indexOf("--scoring-threads");
const THREADS = threadsArg >= 0 ? Number(argv[threadsArg + 1]) : undefined;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
/** New entries that are people on file (a real list change matches a handful of customers, if any). */
const MATCHING = 20;

const entryLine = (id: string, name: string, year: number) =>
  JSON.stringify({ id, schema: "Person", properties: { name: [name], birthDate: [String(year)], topics: ["sanction"] } });

async function main() {
  const { url, dataDir, admin, drop } = await throwawayDatabase();
  try {
    process.env.DATABASE_URL = url;
    process.env.BI_DATA_DIR = dataDir;
    process.env.BI_ENV = "sandbox";
    const { getDb, disconnectDb } = await import("../src/server/db/client");
    const { seal } = await import("../src/server/crypto/secret-box");
    const { sealWithKey } = await import("../src/server/crypto/person-box");
    const { importList } = await import("../src/server/services/screening/import");
    const { runMonitoring } = await import("../src/server/services/screening/monitoring-runs");
    const db = await getDb();

    const rand = rng(7);
    const make = nameMaker(rand);
    const base = Array.from({ length: BASE }, (_, i) => entryLine(`base-${i}`, make(), 1940 + Math.floor(rand() * 60)));
    const people = Array.from({ length: PEOPLE }, () => ({ name: make(), year: 1940 + Math.floor(rand() * 60) }));
    const added = Array.from({ length: CHANGED }, (_, i) => {
      if (i < MATCHING) {
        const p = people[Math.floor(rand() * people.length)]!;
        return entryLine(`new-${i}`, p.name, p.year);
      }
      return entryLine(`new-${i}`, make(), 1940 + Math.floor(rand() * 60));
    });

    const t0 = performance.now();
    const orgId = randomUUID();
    await admin.query(
      `INSERT INTO organizations (id, name, "consolePasswordHash", "updatedAt") VALUES ($1, 'Bench monitoring', 'x', now())`,
      [orgId],
    );
    // The list before the change, with nobody approved yet: no run is queued for it.
    await importList(db, {
      format: "ftm",
      list: "bench-monitoring",
      files: [{ name: "v1.json", text: base.join("\n") }],
      importedBy: "system:bench",
    });
    const ids: string[] = [];
    for (let done = 0; done < PEOPLE; done += 10_000) {
      // As KYC approval keeps them: the identity sealed under the person's own data key, kept sealed in person_keys.
      const chunk = people.slice(done, done + 10_000).map((p) => {
        const id = randomUUID();
        ids.push(id);
        const key = randomBytes(32);
        const sealed = sealWithKey(key, id, JSON.stringify({ name: p.name, birthDate: String(p.year), country: null }));
        return { id, sealed, key: seal(key.toString("base64")) };
      });
      await admin.query(
        `WITH x AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, sealed text, key text)),
              p AS (INSERT INTO people (id, "orgId", "kycStatus", "updatedAt") SELECT id, $1::uuid, 'approved', now() FROM x),
              k AS (INSERT INTO person_keys ("personId", "orgId", "keySealed") SELECT id, $1::uuid, key FROM x)
         INSERT INTO screening_subjects ("personId", "orgId", "querySealed", "updatedAt") SELECT id, $1::uuid, sealed, now() FROM x`,
        [orgId, JSON.stringify(chunk)],
      );
    }
    // As autovacuum leaves the tables of an organization's people by the time a list changes: the
    // planner's statistics, and the visibility map that lets the page read use index-only scans.
    await admin.query("VACUUM ANALYZE people, person_keys, screening_subjects");
    const seedMs = performance.now() - t0;

    const t1 = performance.now();
    const v2 = await importList(db, {
      format: "ftm",
      list: "bench-monitoring",
      files: [{ name: "v2.json", text: [...base, ...added].join("\n") }],
      importedBy: "system:bench",
    });
    const importMs = performance.now() - t1;

    const importLoad = load();
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 20);
    const profiler = PROF_FILE ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.start");
    }
    const t2 = performance.now();
    const { processed } = await runMonitoring(db, { orgId, limit: 1, scoringThreads: THREADS });
    const runMs = performance.now() - t2;
    if (profiler && PROF_FILE) {
      const { profile } = await profiler.post("Profiler.stop");
      fs.writeFileSync(PROF_FILE, JSON.stringify(profile));
      profiler.disconnect();
    }
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const runLoad = load();
    const run = await db.screeningMonitorRun.findUniqueOrThrow({ where: { id: processed[0]! } });
    if (run.status !== "completed" || run.listVersionId !== v2.listVersionId) throw new Error(`the run did not complete: ${run.status}`);

    if (HITS_FILE) {
      // Every new match of the run, by the person's number in the seed (ids are random, names are not).
      const numberOf = new Map(ids.map((id, i) => [id, i]));
      const { rows: results } = await admin.query<{ subjectRef: string; detail: { matches?: { externalId: string; score: number }[] } }>(
        `SELECT "subjectRef", detail FROM screening_results WHERE "orgId" = $1::uuid AND "subjectType" = 'person'`,
        [orgId],
      );
      const lines = results.flatMap((r) => {
        const n = numberOf.get(r.subjectRef.slice(r.subjectRef.lastIndexOf(":") + 1));
        return (r.detail.matches ?? []).map((m) => `${n ?? r.subjectRef}\t${m.externalId}\t${m.score}`);
      });
      lines.sort();
      fs.writeFileSync(HITS_FILE, `${lines.join("\n")}\n`);
    }
    console.log(
      `screening monitoring: re-screen after a list change (in-memory key index of the change, batches of 1,000), ${os.cpus().length} CPUs`,
    );
    const rows = [
      ["people approved", PEOPLE.toLocaleString("en")],
      ["list change", `${run.changedEntries.toLocaleString("en")} new entries (list of ${(BASE + CHANGED).toLocaleString("en")})`],
      ["seeding", `${(seedMs / 1000).toFixed(1)} s (not timed below)`],
      ["import + activation", `${(importMs / 1000).toFixed(2)} s (load ${importLoad})`],
      ["re-screen", `${(runMs / 1000).toFixed(2)} s (load ${runLoad})`],
      ["scoring threads beside the main one", THREADS === undefined ? "the job's default" : String(THREADS)],
      ["peak resident memory (re-screen)", `${Math.round(peakRss / 2 ** 20)} MB`],
      ["people per second", Math.round(run.personsScreened / (runMs / 1000)).toLocaleString("en")],
      ["people screened", run.personsScreened.toLocaleString("en")],
      ["new matches / cases opened", `${run.hits} / ${run.casesOpened}`],
    ];
    const w = Math.max(...rows.map((r) => r[0]!.length));
    for (const [k, v] of rows) console.log(`${k!.padEnd(w)}  ${v}`);
    if (JSON_FILE)
      fs.writeFileSync(
        JSON_FILE,
        `${JSON.stringify(
          {
            startedAt: new Date().toISOString(),
            machine: { cpus: os.cpus().length, node: process.version },
            people: PEOPLE,
            changedEntries: run.changedEntries,
            listSize: BASE + CHANGED,
            seedMs,
            importMs,
            importLoad,
            runMs,
            runLoad,
            scoringThreads: THREADS ?? "default",
            peopleScreened: run.personsScreened,
            peoplePerSecond: run.personsScreened / (runMs / 1000),
            hits: run.hits,
            casesOpened: run.casesOpened,
            peakRssMb: peakRss / 2 ** 20,
          },
          null,
          2,
        )}\n`,
      );
    await disconnectDb();
  } finally {
    await drop();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.stack ?? err.message);
    process.exit(1);
  },
);
