import os from "node:os";
import type pg from "pg";
import { getDb } from "../../src/server/db/client";
import { flaggedPerson } from "../../src/server/testing/aml";
import { walletKey, walletSign } from "../../src/server/testing/factories";
import { cpuBetween, databaseCpu, processCpuMs } from "./cpu";
import { type CpuProbe, type LoadResult, settle } from "./load";
import type { BenchServer } from "./server";

/** Concurrent writers of every measured run (the goals are stated at 8). */
const WRITERS = 8;

/**
 * One version of the code under measurement: its server process and an organization of its own,
 * and the database it runs on when that is not the bench's (the --before checkout's own, whose
 * schema may differ: bench/lib/before-db.ts).
 */
export type Side = { label: "before" | "after"; srv: BenchServer; apiKey: string; orgId: string; db?: CpuProbe };

/** A path's figures for one version, over all its alternated runs. */
export type PathResult = LoadResult & {
  /** requests per second of each run, in the order they ran */
  runs: number[];
  /** 1-minute load average of the machine when each run ended */
  load1: number[];
  /** runs that used up their prepared inputs before their time was up (their rate still counts) */
  ranOut: number;
};

type Call = { method: "GET" | "POST"; path: string; body?: unknown; auth?: boolean };
type Answer = { status: number; body: Record<string, unknown> | null; text: string };

/** What has been prepared and not yet used, per version: a path's inputs, and what one path leaves for the next. */
type Stock = { ready: Map<string, unknown[]>; started: Started[]; approved: string[] };
type Started = { applicant: string; personDid: string };
type Bind = { accountDid: string; personDid: string; nonce: string; signature: string };

type PathDef<I> = {
  key: "start" | "review" | "bind" | "clear";
  name: string;
  /** Inputs cost nothing to make (prepared by the thousand, so a run never runs out). */
  free?: boolean;
  /** `n` fresh inputs for the measured request, made before the run (not measured). */
  prepare(side: Side, stock: Stock, n: number): Promise<I[]>;
  call(input: I): Call;
  /** What a measured answer leaves for a later path (a started KYC is a review to make, say). */
  leaves?(stock: Stock, input: I, answer: Answer): void;
};

/**
 * The four product writes under measurement, in the order they run: a KYC start's answer is a
 * review to make, a review's approved person is an account to bind. Every input is made through
 * the measured version's own API (or, for the AML case, the test factory on the shared database),
 * the same way for both versions, before its run starts.
 */
function pathDefs(): PathDef<unknown>[] {
  const start: PathDef<null> = {
    key: "start",
    name: "POST /v1/kyc/start (new person, sandbox provider)",
    free: true,
    prepare: async (_side, _stock, n) => Array.from({ length: n }, () => null),
    call: () => ({ method: "POST", path: "/v1/kyc/start", body: {} }),
    leaves: (stock, _input, answer) => {
      if (answer.status === 200) stock.started.push(startedOf(answer));
    },
  };
  const review: PathDef<Started> = {
    key: "review",
    name: "KYC review arriving (sandbox hosted completion, approved, screening included)",
    prepare: (side, stock, n) =>
      prepareEach(n, async () => stock.started.pop() ?? startedOf(await ok(side, { method: "POST", path: "/v1/kyc/start", body: {} }))),
    call: (s) => ({ method: "POST", path: `/v1/sandbox/kyc/hosted/${s.applicant}`, body: { outcome: "approved" }, auth: false }),
    leaves: (stock, s, answer) => {
      if (answer.status === 200) stock.approved.push(s.personDid);
    },
  };
  const bind: PathDef<Bind> = {
    key: "bind",
    name: "POST /v1/bind/confirm (approved person, account created, fresh challenge)",
    prepare: (side, stock, n) =>
      prepareEach(n, async () => {
        const personDid = stock.approved.pop() ?? (await approvedPerson(side));
        const status = await ok(side, { method: "GET", path: `/v1/kyc/status?personDid=${encodeURIComponent(personDid)}` });
        if (status.body?.status !== "approved" || typeof status.body.createToken !== "string")
          throw new Error(`bench: ${side.label}: person ${personDid} is not approved with a create token: ${status.text}`);
        const wallet = walletKey();
        const created = await ok(side, {
          method: "POST",
          path: "/v1/accounts/free",
          body: { ownerPublicKey: wallet.publicKey, kycCreateToken: status.body.createToken, personDid },
        });
        const accountDid = String(created.body?.accountDid);
        const challenge = await ok(side, { method: "POST", path: "/v1/bind/challenge", body: { accountDid, personDid } });
        return {
          accountDid,
          personDid,
          nonce: String(challenge.body?.nonce),
          signature: walletSign(wallet.privateKey, String(challenge.body?.payloadToSign)),
        };
      }),
    call: (b) => ({ method: "POST", path: "/v1/bind/confirm", body: b }),
  };
  const clear: PathDef<string> = {
    key: "clear",
    name: "POST /v1/aml/clear (flagged person, open case)",
    prepare: async (side, _stock, n) => {
      const db = await getDb();
      // The person's DID under the server's issuer (its own public URL, not this process's).
      const issuer = (await ok(side, { method: "GET", path: "/.well-known/did.json", auth: false })).body?.id;
      return prepareEach(n, async () => `${issuer}:people:${(await flaggedPerson(db, side.orgId)).person.id}`);
    },
    call: (subjectDid) => ({ method: "POST", path: "/v1/aml/clear", body: { subjectDid, reason: "bench: false positive" } }),
  };
  return [start, review, bind, clear] as PathDef<unknown>[];
}

/**
 * Each path before and after, side by side at 8 writers: a warm-up of each, then `rounds` runs
 * of `durationSec` each, alternated before/after, after/before (A B B A…). A run's inputs are
 * prepared just before it for its version (about 1.3× what the previous runs of that version
 * managed in that time), then the 8 writers send them until the time is up; round trips and
 * CPU are read around the sending only, once the server has drained.
 */
export async function productPaths(opts: {
  sides: Side[];
  admin: pg.Client;
  cpu: CpuProbe;
  durationSec: number;
  rounds: number;
  only?: string[];
}): Promise<Record<string, PathResult>> {
  const { sides, cpu, durationSec, rounds } = opts;
  const stocks = new Map(sides.map((s) => [s, { ready: new Map(), started: [], approved: [] } as Stock]));
  // KYC starts are budgeted per organization (100 an hour, not lifted by BI_RATE_LIMIT_FACTOR, in
  // both versions): the bench organizations' hourly windows start far below zero instead.
  for (const s of sides) await liftKycStartBudget(s.db?.admin ?? opts.admin, s.orgId);
  const out: Record<string, PathResult> = {};
  for (const path of pathDefs()) {
    if (opts.only && !opts.only.includes(path.key)) continue;
    if (path.key === "clear" && sides.some((s) => s.db)) {
      // Its flagged people are made by this checkout's test factory, which writes this schema only.
      console.log("  clear: skipped (the --before checkout runs on a database of its own)");
      continue;
    }
    const rate = new Map<Side, number>();
    const runs = new Map<Side, Run[]>(sides.map((s) => [s, []]));
    const one = async (side: Side, seconds: number, warm = false) => {
      const stock = stocks.get(side)!;
      // Three times the warm-up's rate for the first run (cold then), twice the best run's after:
      // the machine is shared and a run may go much faster than the last. What is left over is
      // the next run's.
      const margin = runs.get(side)!.length ? 2 : 3;
      const want = warm ? 3 * WRITERS : path.free ? 500 * seconds : Math.ceil((rate.get(side) ?? 10) * seconds * margin) + WRITERS;
      const ready = (stock.ready.get(path.key) ?? []) as unknown[];
      if (ready.length < want) ready.push(...(await path.prepare(side, stock, want - ready.length)));
      stock.ready.set(path.key, ready);
      const run = await measure(side, path, ready, warm ? 120 : seconds, stock, cpu);
      rate.set(side, Math.max(rate.get(side) ?? 0, run.requests / run.sec));
      const tag = `${path.key} ${side.label}${warm ? " (warm-up)" : ""}`;
      console.log(
        `  ${tag.padEnd(26)} ${(run.requests / run.sec).toFixed(1).padStart(7)} rps  ${String(run.requests).padStart(4)} req  db/req ${(run.queries / run.requests).toFixed(2)}  cpu ms/req app ${(run.appMs / run.requests).toFixed(1)} db ${(run.dbMs / run.requests).toFixed(1)}  non-2xx ${run.non2xx}${run.ranOut ? "  (inputs ran out)" : ""}  load ${run.load1}`,
      );
      if (run.sample) console.log(`    first non-2xx: ${run.sample}`);
      if (!warm) runs.get(side)!.push(run);
    };
    for (const s of sides) await one(s, durationSec, true);
    for (let i = 0; i < rounds; i++) for (const s of i % 2 === 0 ? sides : [...sides].reverse()) await one(s, durationSec);
    for (const s of sides) out[`${path.key}_${s.label}`] = summarise(path.name, runs.get(s)!);
  }
  return out;
}

type Run = {
  requests: number;
  sec: number;
  latencies: number[];
  non2xx: number;
  sample?: string;
  queries: number;
  appMs: number;
  dbMs: number;
  ranOut: boolean;
  load1: number;
};

async function measure<I>(side: Side, path: PathDef<I>, ready: I[], seconds: number, stock: Stock, cpu: CpuProbe): Promise<Run> {
  await settle([side.srv]);
  const q0 = await side.srv.dbQueries();
  const app0 = processCpuMs(side.srv.child.pid);
  const probe = side.db ?? cpu;
  const db0 = await databaseCpu(probe.admin, probe.database);
  const latencies: number[] = [];
  let non2xx = 0;
  let sample: string | undefined;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  let last = t0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (performance.now() < deadline && ready.length) {
        const input = ready.shift()!;
        const s = performance.now();
        const answer = await send(side, path.call(input));
        last = performance.now();
        latencies.push(last - s);
        if (answer.status >= 300) {
          non2xx++;
          sample ??= `${answer.status} ${answer.text.slice(0, 300)}`;
        }
        path.leaves?.(stock, input, answer);
      }
    }),
  );
  const ranOut = ready.length === 0 && last < deadline;
  // Work a request left behind (the group commit's last statement, say) belongs to it.
  await settle([side.srv]);
  const queries = (await side.srv.dbQueries()) - q0;
  const appMs = processCpuMs(side.srv.child.pid) - app0;
  const dbMs = cpuBetween(db0, await databaseCpu(probe.admin, probe.database));
  return {
    requests: latencies.length,
    sec: (last - t0) / 1000,
    latencies,
    non2xx,
    sample,
    queries,
    appMs,
    dbMs,
    ranOut,
    load1: Math.round(os.loadavg()[0]! * 10) / 10,
  };
}

const r2 = (x: number) => Math.round(x * 100) / 100;

function summarise(name: string, runs: Run[]): PathResult {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const sum = (f: (r: Run) => number) => runs.reduce((n, r) => n + f(r), 0);
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const rates = runs.map((r) => r.requests / r.sec);
  return {
    name,
    // The mean of the runs' rates, as the other alternated measurements of the bench.
    rps: Math.round((rates.reduce((a, b) => a + b, 0) / runs.length) * 10) / 10,
    requests,
    p50Ms: Math.round(latencies[Math.floor(latencies.length * 0.5)] ?? 0),
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    non2xx: sum((r) => r.non2xx),
    errors: 0,
    dbPerRequest: requests ? r2(sum((r) => r.queries) / requests) : null,
    appCpuMsPerRequest: requests ? r2(sum((r) => r.appMs) / requests) : undefined,
    dbCpuMsPerRequest: requests ? r2(sum((r) => r.dbMs) / requests) : undefined,
    runs: rates.map((x) => Math.round(x * 10) / 10),
    load1: runs.map((r) => r.load1),
    ranOut: runs.filter((r) => r.ranOut).length,
  };
}

/** `make` called until `n` results, by 8 callers at once. */
async function prepareEach<T>(n: number, make: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let asked = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (asked < n) {
        asked++;
        out.push(await make());
      }
    }),
  );
  return out;
}

const startedOf = (a: Answer): Started => ({
  applicant: new URL(String(a.body?.verificationUrl)).pathname.split("/").pop()!,
  personDid: String(a.body?.personDid),
});

/** A person approved through the version's own KYC flow (start, then the sandbox's hosted completion). */
async function approvedPerson(side: Side): Promise<string> {
  const s = startedOf(await ok(side, { method: "POST", path: "/v1/kyc/start", body: {} }));
  await ok(side, { method: "POST", path: `/v1/sandbox/kyc/hosted/${s.applicant}`, body: { outcome: "approved" }, auth: false });
  return s.personDid;
}

async function liftKycStartBudget(admin: pg.Client, orgId: string) {
  // The windows are whole hours (KYC_START_BUDGET.windowSec), keyed by their UTC start: this hour and the next two.
  await admin.query(
    `INSERT INTO rate_limit_windows (bucket, "windowStart", count, "expiresAt")
     SELECT $1, date_trunc('hour', now() AT TIME ZONE 'UTC') + h * interval '1 hour', -100000000,
            date_trunc('hour', now() AT TIME ZONE 'UTC') + (h + 1) * interval '1 hour'
       FROM generate_series(0, 2) AS h
     ON CONFLICT (bucket, "windowStart") DO UPDATE SET count = -100000000`,
    [`kyc-start:org:${orgId}`],
  );
}

async function ok(side: Side, call: Call): Promise<Answer> {
  const a = await send(side, call);
  if (a.status >= 300) throw new Error(`bench: ${side.label}: ${call.method} ${call.path} answered ${a.status}: ${a.text.slice(0, 500)}`);
  return a;
}

let address = 0;

async function send(side: Side, call: Call): Promise<Answer> {
  address++;
  const res = await fetch(side.srv.base + call.path, {
    method: call.method,
    headers: {
      ...(call.auth === false ? {} : { authorization: `Bearer ${side.apiKey}` }),
      ...(call.body === undefined ? {} : { "content-type": "application/json" }),
      // A client address of its own (the bench servers trust loopback's X-Forwarded-For): KYC
      // starts are also budgeted per address, 20 an hour.
      "x-forwarded-for": `198.19.${(address >> 8) & 255}.${address & 255}`,
    },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const text = await res.text();
  let body: Answer["body"] = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: the text says what happened
  }
  return { status: res.status, body, text };
}
