/**
 * `npm run bench`: the /v1 pipeline and the audit chain on PostgreSQL, ratios measured
 * side by side in one run. Not part of `npm test`. Flags:
 *   --quick            shorter runs and 10× less audit data (about a minute)
 *   --dir <path>       serve from another checkout (e.g. the code before a change; see bench/before.sh)
 *   --label <name>     names the JSON file under bench/results/ (default "run")
 *   --no-others        do not run bench:webhooks / bench:screening afterwards
 *   --http-only        skip the audit chain part (e.g. for the code before a change that left it alone)
 *   --build-apart      build the audit chains in a child process (bench/build-chain.ts), so that the
 *                      bench process idles meanwhile and times its first verification after a quiet spell
 *   --warm-cache       read each audit chain's table and index into the operating system's cache before
 *                      its first verification (untimed), so that the first run reads no storage
 *                      (docs/performance.md, "First runs that read from storage")
 *   --before <path>    also serve that checkout (bench/before.sh) and measure free create against it,
 *                      side by side, at 8 and 32 writers; audit-verify also times its verification
 *                      in the same rounds (it reads the same database, so its schema must be this one's)
 *   --only <parts>     only these parts, comma-separated:
 *                        audit-verify  build the audit chains and time their verification (old and new, against raw SHA-256)
 *                        paths         KYC start, KYC review, bind confirm and AML clear at 8 writers, before (--before) and
 *                                      after side by side (bench/lib/paths.ts); --paths start,review,bind,clear picks some
 *                        pgbench       pgbench's ceiling for free create's three inserts at 8 and 32 clients, alternated
 *                                      with free create at 8 and 32 writers (bench/lib/pgbench.ts)
 *                      without --only: everything (paths and pgbench included)
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  type AppendResult,
  appendsVersusInserts,
  type BeforeVerify,
  buildChain,
  buildChainApart,
  type VerifyBench,
  verifyVersusRawSha,
} from "./lib/audit";
import { type BeforeDb, beforeDatabase } from "./lib/before-db";
import { seedAccounts, serverSettings, throwawayDatabase } from "./lib/db";
import { type CpuProbe, type LoadResult, type LoadSpec, load, settle } from "./lib/load";
import { productPaths, type Side } from "./lib/paths";
import { type PgbenchResult, pgbench, pgbenchScript } from "./lib/pgbench";
import { printReport, type Report } from "./lib/report";
import { type BenchServer, startServer } from "./lib/server";
import { otherWrites } from "./lib/writes";

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = flag("quick");
const dir = option("dir") ? path.resolve(option("dir")!) : undefined;
const label = option("label") ?? "run";
const beforeDir = option("before") ? path.resolve(option("before")!) : undefined;
const PARTS = ["audit-verify", "paths", "pgbench"];
const only = option("only")
  ?.split(",")
  .map((p) => p.trim())
  .filter(Boolean);
for (const p of only ?? []) if (!PARTS.includes(p)) throw new Error(`--only: unknown part ${p} (parts: ${PARTS.join(", ")})`);
const part = (p: string) => !only || only.includes(p);
const verifyOnly = only?.every((p) => p === "audit-verify") ?? false;

const DURATION = quick ? 2 : 4;
const WRITE_DURATION = quick ? 4 : 8;
const ROUNDS = quick ? 2 : 4;
const CONNECTIONS = 32;
const AMOUNT = 500_000;
const ACCOUNTS_1X = 1_000;
const AUDIT_1X = quick ? 1_000 : 10_000;
const APPENDS = quick ? 1_000 : 2_000;

async function main() {
  const started = Date.now();
  const bench = await throwawayDatabase();
  // The bench process seeds through the service code; it must talk to the same database.
  process.env.DATABASE_URL = bench.url;
  process.env.BI_DATA_DIR = bench.dataDir;
  process.env.BI_RUN_JOBS = "false";
  const { getDb, disconnectDb } = await import("../src/server/db/client");
  const { provisionOrganization } = await import("../src/server/services/org/organizations");
  const { walletKey } = await import("../src/server/testing/factories");
  const db = await getDb();
  const servers: BenchServer[] = [];
  // The --before checkout runs on a database of its own, migrated by its own code (bench/lib/before-db.ts).
  let before: BeforeDb | undefined;
  const beforeDb = async () => (before ??= await beforeDatabase(beforeDir!, bench.dataDir));
  const report: Report = {
    label,
    quick,
    startedAt: new Date(started).toISOString(),
    machine: machine(),
    dir: dir ?? process.cwd(),
    http: {},
    scaling: {},
    writes: {},
    audit: {} as Report["audit"],
    loadAverage: { start: loadAverage() },
    code: code(dir ?? process.cwd(), beforeDir),
  };
  // Interrupted: the servers stop and the throwaway database goes, as at the end of a run.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      console.error(`bench: ${signal}, stopping the servers and dropping the database`);
      void Promise.all(servers.map((s) => s.stop()))
        .then(() => before?.drop())
        .then(() => bench.drop())
        .finally(() => process.exit(130));
    });
  const server = await serverSettings(bench.admin);
  report.machine.postgres = server;
  console.log(
    `database: ${Object.entries(server)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  try {
    if (verifyOnly) {
      await auditPart();
      return save();
    }
    const org = await provisionOrganization(
      db,
      { name: "Bench Org", email: "bench@example.test", plan: "institutional" },
      { type: "system", label: "bench" },
    );
    const orgId = org.organizationId;
    await seedAccounts(bench.admin, orgId, ACCOUNTS_1X);
    const account = (await bench.admin.query<{ did: string }>(`SELECT did FROM accounts WHERE "orgId" = $1 LIMIT 1`, [orgId])).rows[0]!.did;
    const auth = { authorization: `Bearer ${org.apiKey}` };
    const owner = walletKey().publicKey;
    const cpu: CpuProbe = { admin: bench.admin, database: new URL(bench.url).pathname.slice(1) };
    let idem = 0;
    const freeSpec = (apiKey: string): LoadSpec => ({
      name: "POST /v1/accounts/free",
      path: "/v1/accounts/free",
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      perRequest: () => ({
        body: JSON.stringify({ ownerPublicKey: owner }),
        headers: { "idempotency-key": `bench-${process.pid}-${++idem}` },
      }),
    });
    const specs: Record<string, LoadSpec> = {
      health: { name: "GET /v1/health", path: "/v1/health" },
      did: { name: "GET /orgs/{orgId}/did.json", path: `/orgs/${orgId}/did.json` },
      tenant: { name: "GET /v1/tenant", path: "/v1/tenant", headers: auth },
      account: { name: "GET /v1/accounts/{did}", path: `/v1/accounts/${encodeURIComponent(account)}`, headers: auth },
      free: freeSpec(org.apiKey),
    };

    console.log(`bench: database ${bench.url.replace(/\/\/[^@]*@/, "//")}, serving from ${dir ?? "this checkout"}`);
    const [warn, info] = await Promise.all([
      startServer({ databaseUrl: bench.url, dataDir: bench.dataDir, logLevel: "warn", dir }),
      only ? undefined : startServer({ databaseUrl: bench.url, dataDir: bench.dataDir, logLevel: "info", dir }),
    ]);
    servers.push(warn, ...(info ? [info] : []));
    const opts = { connections: CONNECTIONS, durationSec: DURATION, amount: AMOUNT };
    const run = async (key: string, srv: BenchServer[], spec: LoadSpec, connections = CONNECTIONS) => {
      // Writes take tens of milliseconds each: a longer run, so enough of them complete.
      const r = await load(srv, spec, spec.method === "POST" ? { ...opts, connections, durationSec: WRITE_DURATION, cpu } : opts);
      const cpuText = r.appCpuMsPerRequest === undefined ? "" : `  cpu ms/req app ${r.appCpuMsPerRequest} db ${r.dbCpuMsPerRequest ?? "-"}`;
      console.log(
        `  ${key.padEnd(26)} ${String(r.rps).padStart(7)} rps  p99 ${r.p99Ms} ms  db/req ${r.dbPerRequest}  non-2xx ${r.non2xx}  errors ${r.errors}${cpuText}`,
      );
      if (!r.requests) for (const s of srv) console.log(`    ${s.base} stderr: ${s.stderr.slice(-1500)}`);
      return r;
    };
    /** Two measurements interleaved A, B, A, B… and averaged: the machine's noise hits both alike. */
    const pair = async (ka: string, a: () => Promise<LoadResult>, kb: string, b: () => Promise<LoadResult>) => {
      const as: LoadResult[] = [];
      const bs: LoadResult[] = [];
      // A B, B A, A B…: a steady drift (JIT warming up, other load on the machine) cancels out.
      for (let i = 0; i < ROUNDS; i++) {
        if (i % 2 === 0) {
          as.push(await a());
          bs.push(await b());
        } else {
          bs.push(await b());
          as.push(await a());
        }
      }
      report.http[ka] = as.reduce(merge);
      report.http[kb] = bs.reduce(merge);
    };

    if (info) await everything(info);
    if (part("paths")) await pathsPart();
    if (part("pgbench")) await pgbenchPart();
    await Promise.all(servers.map((s) => s.stop()));

    // The audit chain, in this process against the same database (no server running).
    if (part("audit-verify") && !flag("http-only")) await auditPart();

    /** The read and write measurements of `npm run bench` without --only. */
    async function everything(info: BenchServer) {
      // Warm-up: JIT, connection pools, the key cache.
      for (const spec of [specs.health!, specs.did!, specs.tenant!, specs.account!])
        await load([warn, info], spec, { ...opts, durationSec: 2 });
      await load([warn], specs.free!, { ...opts, durationSec: 2 });
      await new Promise((r) => setTimeout(r, 3_000)); // let the warm-up's last writes finish

      await pair(
        "health_warn",
        () => run("health (warn)", [warn], specs.health!),
        "health_info",
        () => run("health (info)", [info], specs.health!),
      );
      await pair(
        "did",
        () => run("did.json (public)", [warn], specs.did!),
        "tenant",
        () => run("tenant (auth)", [warn], specs.tenant!),
      );
      report.http.tenant_info = await run("tenant (auth, info)", [info], specs.tenant!);
      report.http.account = await run("account (auth read)", [warn], specs.account!);

      // The same routes with 10× and 100× the accounts around them.
      for (const [scale, total] of [
        ["1x", ACCOUNTS_1X],
        ["10x", ACCOUNTS_1X * 10],
        ["100x", ACCOUNTS_1X * 100],
      ] as const) {
        const have = Number((await bench.admin.query(`SELECT count(*)::int AS n FROM accounts WHERE "orgId" = $1`, [orgId])).rows[0].n);
        if (have < total) await seedAccounts(bench.admin, orgId, total - have, have);
        report.scaling[`free_${scale}`] = await run(`free create (${scale})`, [warn], specs.free!);
        report.scaling[`account_${scale}`] = await run(`account read (${scale})`, [warn], specs.account!);
      }

      // Free create against the code before the write-path work, side by side (its own organization).
      if (beforeDir) {
        const oldDb = await beforeDb();
        const oldOrg = await oldDb.provision({ name: "Bench Before", email: "before@example.test", plan: "institutional" });
        const old = await startServer({ databaseUrl: oldDb.url, dataDir: bench.dataDir, logLevel: "warn", dir: beforeDir });
        servers.push(old);
        await load([old], freeSpec(oldOrg.apiKey), { ...opts, durationSec: 2 }); // warm-up
        for (const writers of [8, 32]) {
          await pair(
            `free${writers}_before`,
            () => run(`free create, before, ${writers} writers`, [old], freeSpec(oldOrg.apiKey), writers),
            `free${writers}_after`,
            () => run(`free create, after, ${writers} writers`, [warn], specs.free!, writers),
          );
        }
        await old.stop();
      }

      // Other writes, each with its own prepared inputs: round trips and throughput (bench/lib/writes.ts).
      const kycOrgs = await Promise.all(
        ["A", "B"].map((x) =>
          provisionOrganization(
            db,
            { name: `Bench KYC ${x}`, email: `kyc-${x}@example.test`, plan: "institutional" },
            { type: "system", label: "bench" },
          ),
        ),
      );
      report.writes = await otherWrites(
        warn,
        [{ apiKey: org.apiKey, orgId }, ...kycOrgs.map((o) => ({ apiKey: o.apiKey, orgId: o.organizationId }))],
        cpu,
        quick ? 60 : 90,
      );

      // A second instance on the same database: write throughput of one against two.
      const second = await startServer({ databaseUrl: bench.url, dataDir: bench.dataDir, logLevel: "warn", dir });
      servers.push(second);
      await pair(
        "free_one",
        () => run("free create, 1 instance", [warn], specs.free!),
        "free_two",
        () => run("free create, 2 instances", [warn, second], specs.free!),
      );
      await second.stop();
    }

    /**
     * The four product writes before (the --before checkout) and after (this one), side by side at
     * 8 writers, each version with an organization of its own (bench/lib/paths.ts).
     */
    async function pathsPart() {
      console.log("\n== product paths, 8 writers, before/after alternated ==");
      const sides: Side[] = [];
      const input = (label: string) => ({
        name: `Bench Paths ${label}`,
        email: `paths-${label}@example.test`,
        plan: "institutional" as const,
      });
      let old: BenchServer | undefined;
      if (beforeDir) {
        const oldDb = await beforeDb();
        const o = await oldDb.provision(input("before"));
        old = await startServer({ databaseUrl: oldDb.url, dataDir: bench.dataDir, logLevel: "warn", dir: beforeDir });
        servers.push(old);
        sides.push({
          label: "before",
          srv: old,
          apiKey: o.apiKey,
          orgId: o.organizationId,
          db: { admin: oldDb.admin, database: oldDb.database },
        });
      } else console.log("  (no --before: the code after only)");
      const o = await provisionOrganization(db, input("after"), { type: "system", label: "bench" });
      sides.push({ label: "after", srv: warn, apiKey: o.apiKey, orgId: o.organizationId });
      report.paths = await productPaths({
        sides,
        admin: bench.admin,
        cpu,
        durationSec: WRITE_DURATION,
        rounds: ROUNDS,
        only: option("paths")?.split(","),
      });
      await old?.stop();
    }

    /**
     * PostgreSQL's own ceiling for what a free create persists (pgbench, three inserts in a
     * transaction) at 8 and 32 clients, alternated with free create at 8 and 32 writers.
     */
    async function pgbenchPart() {
      console.log("\n== pgbench ceiling for free create's three inserts ==");
      await load([warn], specs.free!, { ...opts, durationSec: 2 }); // warm-up, and rows of a free create to copy
      await settle([warn]);
      const pgOrg = await provisionOrganization(
        db,
        { name: "Bench pgbench", email: "pgbench@example.test", plan: "institutional" },
        { type: "system", label: "bench" },
      );
      const script = await pgbenchScript(bench.admin, orgId, pgOrg.organizationId, bench.dataDir);
      report.pgbench = {
        script: "account row, account.created outbox event, account.created audit entry (real tables)",
        sql: script.sql,
        bytesPerTransaction: script.bytes,
        at: {},
      };
      for (const clients of [8, 32]) {
        const pgs: PgbenchResult[] = [];
        const frees: LoadResult[] = [];
        const pg = async () => {
          const r = await pgbench(bench.url, script.file, clients, WRITE_DURATION);
          console.log(
            `  ${`pgbench, ${clients} clients`.padEnd(26)} ${String(r.tps).padStart(7)} tps  latency ${r.latencyMs} ms  failed ${r.failed}  load ${loadAverage()[0]}`,
          );
          pgs.push(r);
        };
        const free = async () => {
          frees.push(await run(`free create, ${clients} writers`, [warn], specs.free!, clients));
        };
        for (let i = 0; i < ROUNDS; i++) for (const f of i % 2 === 0 ? [pg, free] : [free, pg]) await f();
        const tps = Math.round(pgs.reduce((n, r) => n + r.tps, 0) / pgs.length);
        const merged = frees.reduce(merge);
        report.pgbench.at[clients] = {
          pgbenchTps: tps,
          pgbenchRuns: pgs,
          free: merged,
          freeRuns: frees.map((r) => r.rps),
          fraction: Math.round((merged.rps / tps) * 1000) / 1000,
        };
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await disconnectDb();
    await before?.drop();
    await bench.drop();
  }

  async function auditPart() {
    const chainOrg = await provisionOrganization(
      db,
      { name: "Bench Chain", email: "chain@example.test" },
      { type: "system", label: "bench" },
    );
    const plainOrg = await provisionOrganization(
      db,
      { name: "Bench Plain", email: "plain@example.test" },
      { type: "system", label: "bench" },
    );
    if (!verifyOnly) {
      report.audit.appends = await appendsVersusInserts(db, chainOrg.organizationId, plainOrg.organizationId, APPENDS);
      logAppends("appends (empty chain)", report.audit.appends);
    }
    report.audit.verify = {};
    // The earlier checkout's verification, reading the same database (its schema must be this one's).
    let beforeVerify: BeforeVerify | undefined;
    if (beforeDir) {
      const { getDb: beforeGetDb } = await import(path.join(beforeDir, "src/server/db/client.ts"));
      const { verifyChain: beforeChain } = await import(path.join(beforeDir, "src/server/services/audit/verify.ts"));
      const beforeDb = await beforeGetDb();
      beforeVerify = { dir: beforeDir, verify: (orgId) => beforeChain(beforeDb, orgId) };
    }
    for (const [scale, n] of [
      ["1x", AUDIT_1X],
      ["10x", AUDIT_1X * 10],
      ["100x", AUDIT_1X * 100],
    ] as const) {
      const o = await provisionOrganization(
        db,
        { name: `Bench Audit ${scale}`, email: `audit-${scale}@example.test` },
        { type: "system", label: "bench" },
      );
      const t0 = Date.now();
      // --build-apart: in a process of its own, so that this one has idled while it was built, as a
      // service between requests (docs/performance.md, "Slow processes").
      if (flag("build-apart")) await buildChainApart(bench.url, o.organizationId, n);
      else await buildChain(bench.admin, o.organizationId, n);
      const v = await verifyVersusRawSha(db, bench.admin, o.organizationId, n, { before: beforeVerify, warmCache: flag("warm-cache") });
      report.audit.verify[scale] = v;
      logVerify(`verify ${n} (${scale})`, v, Date.now() - t0);
      if (scale === "100x" && !verifyOnly) {
        const other = await provisionOrganization(
          db,
          { name: "Bench Plain 2", email: "plain2@example.test" },
          { type: "system", label: "bench" },
        );
        report.audit.appendsLongChain = await appendsVersusInserts(db, o.organizationId, other.organizationId, APPENDS);
        logAppends(`appends (${n} in chain)`, report.audit.appendsLongChain);
      }
    }
  }
  save();

  function save() {
    report.loadAverage.end = loadAverage();
    report.durationSec = Math.round((Date.now() - started) / 1000);
    printReport(report);
    const out = path.join(import.meta.dirname, "results", `${label}-${report.startedAt.replace(/[:.]/g, "-")}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nJSON: ${path.relative(process.cwd(), out)}`);
    if (!flag("no-others") && !only) runOtherBenches();
  }
}

/** Averages runs of equal length (rps weighted by run, round trips by request). */
function merge(a: LoadResult, b: LoadResult, i = 1): LoadResult {
  const requests = a.requests + b.requests;
  return {
    ...a,
    rps: Math.round((a.rps * i + b.rps) / (i + 1)),
    requests,
    p50Ms: Math.max(a.p50Ms, b.p50Ms),
    p99Ms: Math.max(a.p99Ms, b.p99Ms),
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
    dbPerRequest:
      a.dbPerRequest === null || b.dbPerRequest === null
        ? null
        : Math.round(((a.dbPerRequest * a.requests + b.dbPerRequest * b.requests) / requests) * 100) / 100,
  };
}

const logAppends = (what: string, r: AppendResult) =>
  console.log(
    `  ${what.padEnd(22)} grouped ${r.chainPerSec}/s  in a transaction ${r.txPerSec}/s  plain ${r.plainPerSec}/s  ratio ${r.ratio}  chain valid ${r.chainValid} (${r.chainEntries})`,
  );
const mb = (x: number | null) => (x === null ? "?" : `${x} MB`);
const logVerify = (what: string, v: VerifyBench, ms: number) =>
  console.log(
    `  ${what.padEnd(22)} verify ${v.verifySec}s  before ${v.baselineSec}s (ratio ${v.baselineRatio}, same answer ${v.baselineAgrees})  raw sha ${v.rawShaSec}s (createHash ${v.rawCreateHashSec}s)  jcs+sha ${v.jcsShaSec}s  ratio ${v.ratio}  repeated ${v.verifyRepeatSec}s ratio ${v.ratioRepeat}  full GCs ${v.fullGcs.first} first, ${v.fullGcs.repeated.join("/")} repeated  storage reads ${mb(v.storageMb.first)} first, ${v.storageMb.repeated.map(mb).join("/")} repeated${v.cacheWarmed ? " (cache warmed)" : ""}${v.nodeDigests ? `  node:crypto digests ${v.nodeDigests.sec}s ratio ${v.nodeDigests.ratio} (same answer ${v.nodeDigests.agrees})` : ""}${v.before ? `  --before ${v.before.sec}s ratio ${v.before.ratio} (same answer ${v.before.agrees})` : ""}  valid ${v.valid}  (built+verified in ${ms} ms)`,
  );

/** What was measured: the commit of the checkout served, what it changes beside it, and the --before folder. */
function code(cwd: string, before: string | undefined): Report["code"] {
  const git = (...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8" }).stdout?.trim() ?? "";
  return {
    commit: git("rev-parse", "--short", "HEAD"),
    uncommitted: git("status", "--porcelain", "--untracked-files=all", "src", "prisma").split("\n").filter(Boolean),
    ...(before ? { before } : {}),
  };
}

/** The machine's load average over 1, 5 and 15 minutes (other engineers' work shares it). */
const loadAverage = () => os.loadavg().map((x) => Math.round(x * 10) / 10);

function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "?",
    memGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

/** Other areas' benches print their own tables (bench:webhooks, bench:screening), when they exist. */
function runOtherBenches() {
  const scripts = (JSON.parse(fs.readFileSync("package.json", "utf8")) as { scripts?: Record<string, string> }).scripts ?? {};
  for (const name of ["bench:webhooks", "bench:screening"]) {
    if (!scripts[name]) continue;
    console.log(`\n== npm run ${name} ==`);
    spawnSync("npm", ["run", name], { stdio: "inherit" });
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.stack ?? err.message);
    process.exit(1);
  },
);
