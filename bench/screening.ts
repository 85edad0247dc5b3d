/**
 * `npm run bench:screening`: the time of one screen (screenPerson: candidate retrieval by key,
 * scoring, storing the result) against generated lists of 5,000 and 50,000 people (--sizes
 * 5000,50000,1000000 adds a list of a million), so growth with list size is visible: per size the
 * import's time and this process's peak resident memory (the list is generated and imported as a
 * stream, never held whole), the screen's median and p95, findMatches alone, and the candidates
 * scored per screen (median, p95, max); then matching quality on the sample of OFAC's real SDN
 * list (tests/fixtures/ofac-sdn/, docs/screening.md § Quality on a real list): recall and
 * false-positive rate per kind of variant. Every figure is printed with the load average beside
 * it (the machine may be shared). Runs on a throwaway PostgreSQL database (found as the tests find
 * one) and drops it at the end. Flags: --sizes N,N… (default 5000,50000), --screens N (default
 * 300), --compare N (compare answers with scoring every entry sharing a key on the first N timed
 * screens only; default all), --quality-only, --no-monitoring (skip the ongoing-screening bench run afterwards), --json
 * FILE (also write the figures there, e.g. bench/results/screening-<label>-<time>.json, to compare
 * two runs).
 */

import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { throwawayDatabase } from "./lib/db";
import { nameMaker, rng } from "./lib/names";

const argv = process.argv.slice(2);
const screensArg = argv.indexOf("--screens");
const SCREENS = screensArg >= 0 ? Number(argv[screensArg + 1]) : 300;
// Scoring every entry sharing a key takes seconds a screen at a million entries: --compare N
// compares the answers on the first N timed screens only (default: every screen).
const compareArg = argv.indexOf("--compare");
const COMPARE = compareArg >= 0 ? Number(argv[compareArg + 1]) : Number.POSITIVE_INFINITY;
if (!(COMPARE >= 0)) throw new Error("--compare takes a number of screens (0 or more)");
const QUALITY_ONLY = argv.includes("--quality-only");
const NO_MONITORING = argv.includes("--no-monitoring");
const jsonArg = argv.indexOf("--json");
const JSON_FILE = jsonArg >= 0 ? argv[jsonArg + 1] : undefined;
/** What --json writes: the timing rows and the quality figures of this run. */
const report: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "", node: process.version },
};
const sizesArg = argv.indexOf("--sizes");
const SIZES = sizesArg >= 0 ? argv[sizesArg + 1]!.split(",").map(Number) : [5_000, 50_000];
if (SIZES.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error("--sizes takes list sizes separated by commas");

/** The 1, 5 and 15 minute load averages, printed beside every figure. */
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** The process's resident memory at its highest while `fn` runs (sampled every 20 ms and at the end). */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakRss: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const value = await fn();
    return { value, peakRss: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(timer);
  }
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/**
 * A generated list as FtM JSON lines, streamed: one line is made when the importer reads it, so a
 * million entries never exist at once in this process. The names at `keep` (indices) are handed
 * to `kept` as they go by, for the screens' queries.
 */
function syntheticList(size: number, seed: number, keep: ReadonlySet<number>, kept: Map<number, string>): Readable {
  const rand = rng(seed);
  const make = nameMaker(rand);
  function* lines() {
    let buf = "";
    for (let i = 0; i < size; i++) {
      const name = make();
      if (keep.has(i)) kept.set(i, name);
      const year = 1940 + Math.floor(rand() * 60);
      const line = JSON.stringify({
        id: `bench-${i}`,
        schema: "Person",
        properties: {
          name: [name],
          alias: rand() < 0.3 ? [make()] : [],
          birthDate: [String(year)],
          topics: [rand() < 0.7 ? "sanction" : "role.pep"],
        },
      });
      buf += `${line}\n`;
      if (buf.length >= 64 * 1024) {
        yield buf;
        buf = "";
      }
    }
    if (buf) yield buf;
  }
  return Readable.from(lines(), { objectMode: false });
}

/** Recall and false-positive rate per kind of variant on the OFAC sample, and what a screen costs there. */
async function ofacQuality(db: Awaited<ReturnType<typeof import("../src/server/db/client")["getDb"]>>) {
  const { importListFiles } = await import("../src/server/services/screening/import-files");
  const { findMatches } = await import("../src/server/services/screening/screen");
  const q = await import("../src/server/testing/ofac-quality");
  const imported = await importListFiles(db, {
    format: "ofac",
    list: "bench-ofac-sample",
    paths: q.OFAC_SAMPLE_FILES,
    importedBy: "system:bench",
  });
  const versions = [{ id: imported.listVersionId, list: imported.list, versionHash: imported.versionHash }];
  const pairs = q.readStoredPairs();
  const result = await q.evaluatePairs(db, versions, pairs);
  const minRecall = q.documentedFigure("Minimum recall, OFAC sample");
  const maxFp = q.documentedFigure("Maximum false-positive rate, OFAC sample");
  console.log("");
  console.log(`screening quality on the OFAC SDN sample (${imported.entryCount} individuals, ${pairs.length} labelled pairs)`);
  const w = Math.max(...result.byKind.map((k) => k.kind.length));
  console.log(`${"kind".padEnd(w)}  pairs  matched  ${"figure".padEnd(22)}`);
  for (const k of result.byKind) {
    const positive = (q.POSITIVE_KINDS as readonly string[]).includes(k.kind);
    const figure = positive ? `recall ${k.rate.toFixed(3)}` : `false positives ${k.rate.toFixed(3)}`;
    console.log(`${k.kind.padEnd(w)}  ${String(k.pairs).padStart(5)}  ${String(k.matched).padStart(7)}  ${figure}`);
  }
  console.log(
    `recall ${result.recall.toFixed(4)} (minimum ${minRecall}), false-positive rate ${result.falsePositiveRate.toFixed(4)} (maximum ${maxFp}); load ${load()}`,
  );
  if (result.wrong.length) console.log(`wrong: ${result.wrong.map((x) => `#${x.id} ${x.kind}`).join(", ")}`);
  report.quality = {
    pairs: pairs.length,
    recall: result.recall,
    falsePositiveRate: result.falsePositiveRate,
    byKind: result.byKind,
    wrong: result.wrong,
  };
  // What retrieval hands to scoring (candidates scored) and time per screen; beside it, scoring every entry sharing a key.
  const counts: number[] = [];
  const times: number[] = [];
  const newCounts: number[] = [];
  const newTimes: number[] = [];
  let differ = 0;
  for (const p of pairs) {
    const t = performance.now();
    const { candidates, matches } = await findMatches(db, p.query, { versions });
    const t1 = performance.now();
    const via = await matchesOfEverySharingAKey(db, p.query, versions);
    newTimes.push(performance.now() - t1);
    newCounts.push(via.candidates);
    if (via.matches.join() !== matches.map((m) => m.entryId).join()) differ++;
    times.push(t1 - t);
    counts.push(candidates);
  }
  newCounts.sort((a, b) => a - b);
  newTimes.sort((a, b) => a - b);
  console.log(
    `every entry sharing a key scored, on the same queries: candidates median ${percentile(newCounts, 50)}, p95 ${percentile(newCounts, 95)}, max ${newCounts.at(-1)}; ` +
      `median ${percentile(newTimes, 50).toFixed(2)} ms, p95 ${percentile(newTimes, 95).toFixed(2)} ms; answers differing ${differ}; load ${load()}`,
  );
  counts.sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  report.ofacScreens = {
    screens: times.length,
    candidatesMedian: percentile(counts, 50),
    candidatesP95: percentile(counts, 95),
    candidatesMax: counts.at(-1),
    medianMs: percentile(times, 50),
    p95Ms: percentile(times, 95),
    load: load(),
  };
  report.ofacEverySharingAKey = {
    candidatesMedian: percentile(newCounts, 50),
    candidatesP95: percentile(newCounts, 95),
    candidatesMax: newCounts.at(-1),
    medianMs: percentile(newTimes, 50),
    p95Ms: percentile(newTimes, 95),
    answersDiffer: differ,
    load: load(),
  };
  console.log(
    `candidates scored per screen: median ${percentile(counts, 50)}, p95 ${percentile(counts, 95)}, max ${counts.at(-1)}; ` +
      `findMatches median ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms; load ${load()}`,
  );
}

type Db = Awaited<ReturnType<typeof import("../src/server/db/client")["getDb"]>>;

/**
 * What findMatches answered before retrieval.ts: every entry sharing a key with the query scored
 * (everySharingAKey), with the same scoring and order, so the two answers can be compared.
 */
async function matchesOfEverySharingAKey(
  db: Db,
  query: { name: string; birthDate?: string | null },
  versions: { id: string; list: string }[],
) {
  const { everySharingAKey } = await import("../src/server/services/screening/retrieval");
  const { nameTokens, retrievalKeys } = await import("../src/server/services/screening/normalize");
  const { MATCH_THRESHOLD, scoreCandidate, TokenComparer } = await import("../src/server/services/screening/score");
  const tokens = nameTokens(query.name);
  const birthDate = query.birthDate ?? null;
  const keys = retrievalKeys(tokens);
  const rows =
    keys.length > 0
      ? await everySharingAKey(
          db,
          versions.map((v) => v.id),
          keys,
        )
      : [];
  const comparer = new TokenComparer(tokens);
  const listOf = new Map(versions.map((v) => [v.id, v.list]));
  const scored = rows
    .map((r) => ({ r, total: scoreCandidate({ tokens, birthDate }, r, comparer).total }))
    .filter((x) => x.total >= MATCH_THRESHOLD)
    .sort(
      (a, b) =>
        b.total - a.total ||
        cmp(listOf.get(a.r.listVersionId) ?? "", listOf.get(b.r.listVersionId) ?? "") ||
        cmp(a.r.externalId, b.r.externalId) ||
        cmp(a.r.id, b.r.id),
    );
  return { matches: scored.map((x) => x.r.id), candidates: rows.length };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main() {
  const { url, dataDir, admin, drop } = await throwawayDatabase();
  try {
    // The service code reads its database from the environment; point it at the throwaway one.
    process.env.DATABASE_URL = url;
    process.env.BI_DATA_DIR = dataDir;
    process.env.BI_ENV = "sandbox";
    const { getDb, disconnectDb } = await import("../src/server/db/client");
    const { importFtmStream } = await import("../src/server/services/screening/import-ftm");
    const { ensureSandboxLists } = await import("../src/server/services/screening/sandbox-lists");
    const { activePersonLists, findMatches, screenPerson } = await import("../src/server/services/screening/screen");
    const db = await getDb();
    await ensureSandboxLists(db); // the fixtures load first, as in a sandbox, so the timed screens never include that
    const orgId = randomUUID();
    const rows: string[][] = [];
    const timings: Record<string, number | string>[] = [];
    report.screenPerson = timings;
    for (const size of QUALITY_ONLY ? [] : SIZES) {
      // Half the screens are listed people (with a typo), half are people not on the list. The
      // listed ones are drawn by index before the list is generated, and their names kept as the
      // generator goes by them.
      const rand = rng(99);
      const outsider = nameMaker(rng(12345));
      const picks = Array.from({ length: SCREENS + 20 }, (_, i) => (i % 2 ? -1 : Math.floor(rand() * size)));
      const kept = new Map<number, string>();
      const rssBefore = process.memoryUsage().rss;
      const t0 = performance.now();
      // One list, replaced: each size's version takes the place of the one before, as a real import would.
      const { value: imported, peakRss: importRss } = await peakRss(() =>
        importFtmStream(db, {
          list: "bench",
          name: `bench-${size}.json`,
          open: () => syntheticList(size, 7, new Set(picks), kept),
          importedBy: "system:bench",
        }),
      );
      const importMs = performance.now() - t0;
      const importLoad = load();
      // As autovacuum leaves them some minutes after an import: statistics, and the visibility map
      // that lets retrieval read the key table by index-only scans.
      const tv = performance.now();
      for (const table of ["screening_entries", "screening_entry_keys", "screening_key_counts", "screening_word_deletions"])
        await admin.query(`VACUUM ANALYZE ${table}`);
      const vacuumMs = performance.now() - tv;
      const queries = picks.map((idx) => {
        if (idx < 0) return outsider();
        const n = kept.get(idx)!;
        return n.length > 6 ? n.slice(0, 5) + n[6] + n[5] + n.slice(7) : n;
      });
      const times: number[] = [];
      let hits = 0;
      const { peakRss: screenRss } = await peakRss(async () => {
        for (const [i, name] of queries.entries()) {
          const t = performance.now();
          const out = await screenPerson(db, { orgId, subjectRef: `bench-${i}`, name });
          if (i >= 20) times.push(performance.now() - t); // the first 20 warm up caches and plans
          if (out.matches.length) hits++;
        }
      });
      const screenLoad = load();
      // The same queries through findMatches alone (retrieval and scoring, nothing stored): what
      // retrieval hands to scoring, and the time without the stored result; then scoring every
      // entry sharing a key with the query (what findMatches did before retrieval.ts), whose
      // answer must be the same.
      const counts: number[] = [];
      const findTimes: number[] = [];
      const newCounts: number[] = [];
      const newTimes: number[] = [];
      let differ = 0;
      let compared = 0;
      const versions = await activePersonLists(db, orgId);
      for (const [i, name] of queries.entries()) {
        const t = performance.now();
        const { candidates, matches } = await findMatches(db, { name }, { versions });
        const t1 = performance.now();
        if (i >= 20) {
          findTimes.push(t1 - t);
          counts.push(candidates);
        }
        if (i >= 20 + COMPARE) continue;
        const viaRetrieval = await matchesOfEverySharingAKey(db, { name }, versions);
        const t2 = performance.now();
        compared++;
        if (viaRetrieval.matches.join() !== matches.map((m) => m.entryId).join()) differ++;
        if (i >= 20) {
          newTimes.push(t2 - t1);
          newCounts.push(viaRetrieval.candidates);
        }
      }
      newTimes.sort((a, b) => a - b);
      newCounts.sort((a, b) => a - b);
      times.sort((a, b) => a - b);
      counts.sort((a, b) => a - b);
      findTimes.sort((a, b) => a - b);
      timings.push({
        size,
        entries: imported.entryCount,
        importMs,
        importLoad,
        vacuumMs,
        rssBeforeImportMb: rssBefore / 2 ** 20,
        importPeakRssMb: importRss / 2 ** 20,
        screens: times.length,
        medianMs: percentile(times, 50),
        p95Ms: percentile(times, 95),
        findMatchesMedianMs: percentile(findTimes, 50),
        findMatchesP95Ms: percentile(findTimes, 95),
        candidatesMedian: percentile(counts, 50),
        candidatesP95: percentile(counts, 95),
        candidatesMax: counts.at(-1)!,
        screenPeakRssMb: screenRss / 2 ** 20,
        everySharingAKeyMedianMs: percentile(newTimes, 50),
        everySharingAKeyP95Ms: percentile(newTimes, 95),
        everySharingAKeyCandidatesMedian: percentile(newCounts, 50),
        everySharingAKeyCandidatesP95: percentile(newCounts, 95),
        everySharingAKeyCandidatesMax: newCounts.at(-1)!,
        answersDiffer: differ,
        answersCompared: compared,
        screenLoad,
        hits,
      });
      rows.push([
        size.toLocaleString("en"),
        String(imported.entryCount),
        `${(importMs / 1000).toFixed(1)} s`,
        `${mb(rssBefore)} → ${mb(importRss)}`,
        importLoad,
        String(times.length),
        `${percentile(times, 50).toFixed(2)} ms`,
        `${percentile(times, 95).toFixed(2)} ms`,
        `${percentile(findTimes, 50).toFixed(2)} / ${percentile(findTimes, 95).toFixed(2)} ms`,
        `${percentile(counts, 50)} / ${percentile(counts, 95)} / ${counts.at(-1)}`,
        `${percentile(newTimes, 50).toFixed(2)} / ${percentile(newTimes, 95).toFixed(2)} ms`,
        `${percentile(newCounts, 50)} / ${percentile(newCounts, 95)} / ${newCounts.at(-1)}`,
        `${differ} of ${compared}`,
        mb(screenRss),
        screenLoad,
        `${Math.round((hits / queries.length) * 100)}%`,
      ]);
      console.log(`${size.toLocaleString("en")} entries: ${rows.at(-1)!.join(", ")}`);
    }
    const head = [
      "list size",
      "entries",
      "import",
      "import rss (before → peak)",
      "load (import)",
      "screens",
      "median",
      "p95",
      "findMatches median / p95",
      "candidates median / p95 / max",
      "every sharing a key median / p95",
      "its candidates median / p95 / max",
      "answers differing",
      "rss (screens)",
      "load (screens)",
      "with a match",
    ];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
    if (!QUALITY_ONLY) {
      console.log(
        `screening: one screenPerson (retrieval by phonetic/skeleton key of the entries that could match, scoring, stored result), ${os.cpus().length} CPUs`,
      );
      console.log(line(head));
      for (const r of rows) console.log(line(r));
    }
    await ofacQuality(db);
    await disconnectDb();
    if (JSON_FILE) fs.writeFileSync(JSON_FILE, `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await drop();
  }
}

main().then(
  () => {
    // Ongoing screening: 100,000 approved people against a list change of 1,000 entries (its own database).
    if (!QUALITY_ONLY && !NO_MONITORING)
      process.exit(spawnSync(process.execPath, ["--import", "tsx", "bench/screening-monitoring.ts"], { stdio: "inherit" }).status ?? 1);
    process.exit(0);
  },
  (err: Error) => {
    console.error(err.stack ?? err.message);
    process.exit(1);
  },
);
