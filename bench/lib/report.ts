import type { AppendResult, VerifyBench } from "./audit";
import type { LoadResult } from "./load";

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
  goals?: Goal[];
};

type Goal = { goal: string; measured: string; target: string; met: boolean | null };

const r2 = (x: number) => Math.round(x * 100) / 100;

/** The goals, each a ratio of two figures measured in this run. */
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
      measured: `${v.ratio}× (${v.verifySec}s vs ${v.rawShaSec}s)`,
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
  return out;
}

export function printReport(rep: Report): void {
  rep.goals = goals(rep);
  console.log(
    `\n## Bench "${rep.label}" ${rep.startedAt} (${rep.durationSec}s, ${rep.quick ? "quick" : "full"}) on ${rep.machine.cpus} × ${rep.machine.cpuModel}, node ${rep.machine.node}\n`,
  );
  console.log("| route | rps | p50 ms | p99 ms | db round trips / request | app / db CPU ms per request | non-2xx |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const [k, r] of [...Object.entries(rep.http), ...Object.entries(rep.scaling), ...Object.entries(rep.writes ?? {})]) {
    const cpu = r.appCpuMsPerRequest === undefined ? "-" : `${r.appCpuMsPerRequest} / ${r.dbCpuMsPerRequest ?? "-"}`;
    console.log(`| ${k}: ${r.name} | ${r.rps} | ${r.p50Ms} | ${r.p99Ms} | ${r.dbPerRequest ?? "-"} | ${cpu} | ${r.non2xx + r.errors} |`);
  }
  const s = rep.scaling;
  console.log("\n| data growth | 1× | 10× | 100× |");
  console.log("|---|---:|---:|---:|");
  const row = (name: string, f: (k: string) => string) => console.log(`| ${name} | ${f("1x")} | ${f("10x")} | ${f("100x")} |`);
  row("free create rps (accounts)", (k) => String(s[`free_${k}`]?.rps ?? "-"));
  row("account read rps (accounts)", (k) => String(s[`account_${k}`]?.rps ?? "-"));
  row("audit verify µs/entry (entries)", (k) =>
    rep.audit.verify?.[k] ? `${rep.audit.verify[k].usPerEntry} (${rep.audit.verify[k].entries})` : "-",
  );
  if (rep.audit.appendsLongChain) {
    console.log(
      `\nappends on an empty chain: ${rep.audit.appends?.chainPerSec}/s; on a chain of ${rep.audit.appendsLongChain.chainEntries}: ${rep.audit.appendsLongChain.chainPerSec}/s`,
    );
  }
  console.log("\n| goal | measured | target | met |");
  console.log("|---|---|---|---|");
  for (const g of rep.goals) console.log(`| ${g.goal} | ${g.measured} | ${g.target} | ${g.met === null ? "?" : g.met ? "yes" : "NO"} |`);
}
