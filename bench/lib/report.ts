import type { AppendResult, VerifyBench } from "./audit";
import type { LoadResult } from "./load";
import type { PathResult } from "./paths";
import type { PgbenchResult } from "./pgbench";

export type Report = {
  label: string;
  quick: boolean;
  startedAt: string;
  durationSec?: number;
  machine: Record<string, unknown>;
  dir: string;
  http: Record<string, LoadResult>;
  scaling: Record<string, LoadResult>;
  /** Writes other than free create, each over its own prepared inputs (bench/lib/writes.ts). */
  writes: Record<string, LoadResult>;
  audit: { appends?: AppendResult; appendsLongChain?: AppendResult; verify?: Record<string, VerifyBench> };
  /** The four product writes at 8 writers, `<path>_before` and `<path>_after` (bench/lib/paths.ts). */
  paths?: Record<string, PathResult>;
  /** pgbench's ceiling for free create's three inserts, and free create beside it, per client count. */
  pgbench?: {
    script: string;
    /** The script itself (bench/lib/pgbench.ts pgbenchScript). */
    sql: string;
    bytesPerTransaction: number;
    at: Record<number, { pgbenchTps: number; pgbenchRuns: PgbenchResult[]; free: LoadResult; freeRuns: number[]; fraction: number }>;
  };
  /** The machine's load average (1, 5, 15 minutes) when the run started and ended. */
  loadAverage: { start: number[]; end?: number[] };
  /** The commit served, its uncommitted changes under src/ and prisma/ (git status lines), and the --before folder. */
  code?: { commit: string; uncommitted: string[]; before?: string };
  goals?: Goal[];
};

/** The product paths' goals: after / before throughput, round trips and app CPU after. */
const PATH_GOALS: Record<string, { label: string; speedup?: number; roundTrips: number }> = {
  review: { label: "KYC review", speedup: 3, roundTrips: 8 },
  bind: { label: "bind confirm", speedup: 3, roundTrips: 8 },
  clear: { label: "AML clear", roundTrips: 6 },
  start: { label: "KYC start", roundTrips: 6 },
};
const APP_CPU_MS = 5;

type Goal = { goal: string; measured: string; target: string; met: boolean | null };

const r2 = (x: number) => Math.round(x * 100) / 100;

/** The issue's goals, each a ratio of two figures measured in this run. */
export function goals(rep: Report): Goal[] {
  const h = rep.http;
  const out: Goal[] = [];
  const ratio = (goal: string, a: LoadResult | undefined, b: LoadResult | undefined, min: number) => {
    if (!a || !b) return;
    const x = r2(a.rps / b.rps);
    out.push({ goal, measured: `${x}× (${a.rps} / ${b.rps} rps)`, target: `≥ ${min}×`, met: x >= min });
  };
  ratio("authenticated read / one-query public route", h.tenant, h.did, 0.8);
  if (h.tenant)
    out.push({
      goal: "db round trips per authenticated read",
      measured: String(h.tenant.dbPerRequest),
      target: "≤ 1",
      met: h.tenant.dbPerRequest === null ? null : h.tenant.dbPerRequest <= 1,
    });
  if (h.health_warn && h.health_info) {
    const cost = r2(1 - h.health_info.rps / h.health_warn.rps);
    out.push({
      goal: "LOG_LEVEL=info cost on health",
      measured: `${Math.round(cost * 100)}% (${h.health_info.rps} / ${h.health_warn.rps} rps)`,
      target: "≤ 15%",
      met: cost <= 0.15,
    });
  }
  for (const writers of [8, 32])
    ratio(`free create, ${writers} writers, after / before`, h[`free${writers}_after`], h[`free${writers}_before`], 2.5);
  const free = h.free32_after ?? h.free_one;
  if (free)
    out.push({
      goal: "db round trips per free create",
      measured: String(free.dbPerRequest),
      target: "≤ 8",
      met: free.dbPerRequest === null ? null : free.dbPerRequest <= 8,
    });
  const v = rep.audit.verify?.["100x"] ?? rep.audit.verify?.["10x"];
  if (v)
    out.push({
      goal: `audit verification (${v.entries} entries) / raw SHA-256`,
      measured: `${v.ratio}× (${v.verifySec}s vs ${v.rawShaSec}s; repeated ${v.ratioRepeat}×, ${v.verifyRepeatSec}s${v.nodeDigests ? `; with node:crypto digests ${v.nodeDigests.ratio}×, ${v.nodeDigests.sec}s` : ""})`,
      target: "≥ 0.5×",
      met: v.ratio >= 0.5 && v.valid,
    });
  const a = rep.audit.appends;
  if (a)
    out.push({
      goal: `${a.writers} concurrent appenders / plain inserts`,
      measured: `${a.ratio}× (${a.chainPerSec} vs ${a.plainPerSec}/s), chain valid: ${a.chainValid}`,
      target: "≥ 0.6×, one chain",
      met: a.ratio >= 0.6 && a.chainValid,
    });
  ratio("free create, two instances / one (same database, same machine)", h.free_two, h.free_one, 1.0);
  const p = rep.paths ?? {};
  for (const [key, g] of Object.entries(PATH_GOALS)) {
    const before = p[`${key}_before`];
    const after = p[`${key}_after`];
    if (g.speedup) ratio(`${g.label}, 8 writers, after / before`, after, before, g.speedup);
    if (!after) continue;
    out.push({
      goal: `db round trips per ${g.label} (after)`,
      measured: String(after.dbPerRequest),
      target: `≤ ${g.roundTrips}`,
      met: after.dbPerRequest === null ? null : after.dbPerRequest <= g.roundTrips,
    });
    out.push({
      goal: `app CPU ms per ${g.label} (after)`,
      measured: String(after.appCpuMsPerRequest),
      target: `≤ ${APP_CPU_MS}`,
      met: after.appCpuMsPerRequest === undefined ? null : after.appCpuMsPerRequest <= APP_CPU_MS,
    });
  }
  for (const [clients, at] of Object.entries(rep.pgbench?.at ?? {}))
    out.push({
      goal: `free create / pgbench ceiling, ${clients} writers`,
      measured: `${at.fraction}× (${at.free.rps} / ${at.pgbenchTps} per s)`,
      target: clients === "32" ? "≥ 0.15×" : "(shown)",
      met: clients === "32" ? at.fraction >= 0.15 : null,
    });
  return out;
}

export function printReport(rep: Report): void {
  rep.goals = goals(rep);
  console.log(
    `\n## Bench "${rep.label}" ${rep.startedAt} (${rep.durationSec}s, ${rep.quick ? "quick" : "full"}) on ${rep.machine.cpus} × ${rep.machine.cpuModel}, node ${rep.machine.node}\n`,
  );
  const routes = [...Object.entries(rep.http), ...Object.entries(rep.scaling), ...Object.entries(rep.writes ?? {})];
  if (routes.length) {
    console.log("| route | rps | p50 ms | p99 ms | db round trips / request | app / db CPU ms per request | non-2xx |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
  }
  for (const [k, r] of routes) {
    const cpu = r.appCpuMsPerRequest === undefined ? "-" : `${r.appCpuMsPerRequest} / ${r.dbCpuMsPerRequest ?? "-"}`;
    console.log(`| ${k}: ${r.name} | ${r.rps} | ${r.p50Ms} | ${r.p99Ms} | ${r.dbPerRequest ?? "-"} | ${cpu} | ${r.non2xx + r.errors} |`);
  }
  const s = rep.scaling;
  if (Object.keys(s).length || rep.audit.verify) {
    console.log("\n| data growth | 1× | 10× | 100× |");
    console.log("|---|---:|---:|---:|");
    const row = (name: string, f: (k: string) => string) => console.log(`| ${name} | ${f("1x")} | ${f("10x")} | ${f("100x")} |`);
    row("free create rps (accounts)", (k) => String(s[`free_${k}`]?.rps ?? "-"));
    row("account read rps (accounts)", (k) => String(s[`account_${k}`]?.rps ?? "-"));
    row("audit verify µs/entry (entries)", (k) =>
      rep.audit.verify?.[k] ? `${rep.audit.verify[k].usPerEntry} (${rep.audit.verify[k].entries})` : "-",
    );
  }
  if (rep.audit.appendsLongChain) {
    console.log(
      `\nappends on an empty chain: ${rep.audit.appends?.chainPerSec}/s; on a chain of ${rep.audit.appendsLongChain.chainEntries}: ${rep.audit.appendsLongChain.chainPerSec}/s`,
    );
  }
  printPaths(rep);
  if (rep.code)
    console.log(
      `\nmeasured: ${rep.code.commit}${rep.code.uncommitted.length ? ` with uncommitted changes to ${rep.code.uncommitted.length} files under src/ and prisma/ (${rep.code.uncommitted.join("; ")})` : " (no uncommitted changes under src/ and prisma/)"}${rep.code.before ? `; before: ${rep.code.before}` : ""}`,
    );
  console.log(
    `\nload average (1, 5, 15 min): ${rep.loadAverage.start.join(", ")} at the start, ${rep.loadAverage.end?.join(", ") ?? "?"} at the end`,
  );
  console.log("\n| goal | measured | target | met |");
  console.log("|---|---|---|---|");
  for (const g of rep.goals) console.log(`| ${g.goal} | ${g.measured} | ${g.target} | ${g.met === null ? "?" : g.met ? "yes" : "NO"} |`);
}

/** The product paths before and after side by side, and the pgbench ceiling. */
function printPaths(rep: Report) {
  const p = rep.paths;
  if (p && Object.keys(p).length) {
    console.log(
      "\n| path, 8 writers | rps before | rps after | after / before | round trips before → after | app CPU ms before → after | db CPU ms before → after | runs before / after (rps) | non-2xx |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---|---:|");
    for (const key of Object.keys(PATH_GOALS)) {
      const b = p[`${key}_before`];
      const a = p[`${key}_after`];
      if (!a && !b) continue;
      const f = (x: number | null | undefined) => (x === null || x === undefined ? "-" : String(x));
      const both = (g: (r: PathResult) => number | null | undefined) => `${f(b && g(b))} → ${f(a && g(a))}`;
      console.log(
        `| ${(a ?? b)!.name} | ${f(b?.rps)} | ${f(a?.rps)} | ${a && b ? `${r2(a.rps / b.rps)}×` : "-"} | ${both((r) => r.dbPerRequest)} | ${both((r) => r.appCpuMsPerRequest)} | ${both((r) => r.dbCpuMsPerRequest)} | ${b?.runs.join(", ") ?? "-"} / ${a?.runs.join(", ") ?? "-"} | ${(b?.non2xx ?? 0) + (a?.non2xx ?? 0)} |`,
      );
    }
    const loads = Object.values(p).flatMap((r) => r.load1);
    console.log(`\n1-minute load average at the end of each path run: ${Math.min(...loads)}–${Math.max(...loads)}`);
  }
  const g = rep.pgbench;
  if (g) {
    console.log(`\npgbench: ${g.script}, ${g.bytesPerTransaction} bytes of SQL per transaction, prepared statements`);
    console.log("\n| writers / clients | pgbench tps (runs) | free create rps (runs) | free create / pgbench |");
    console.log("|---:|---:|---:|---:|");
    for (const [clients, at] of Object.entries(g.at))
      console.log(
        `| ${clients} | ${at.pgbenchTps} (${at.pgbenchRuns.map((r) => r.tps).join(", ")}) | ${at.free.rps} (${at.freeRuns.join(", ")}) | ${at.fraction}× |`,
      );
  }
}
