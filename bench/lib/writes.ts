import { getDb } from "../../src/server/db/client";
import { flaggedPerson, person } from "../../src/server/testing/aml";
import { walletKey, walletSign } from "../../src/server/testing/factories";
import { cpuBetween, databaseCpu, processCpuMs } from "./cpu";
import type { CpuProbe, LoadResult } from "./load";
import type { BenchServer } from "./server";

type Call = { method: "POST"; path: string; body: unknown };
const CONCURRENCY = 8;

/**
 * Writes other than free create, so the next hot spot is visible: each is prepared (its inputs
 * made through the API or the test factories, not measured), then `n` of them are sent by 8
 * writers; round trips and CPU are read around the measured part only.
 */
export async function otherWrites(
  srv: BenchServer,
  orgs: Array<{ apiKey: string; orgId: string }>,
  cpu: CpuProbe,
  n: number,
): Promise<Record<string, LoadResult>> {
  // KYC starts are budgeted per organization and client address (100 and 20 an hour): each
  // measurement that starts KYC has an organization of its own, and every call its own address.
  const [{ apiKey, orgId }, kycA, kycB] = orgs as [(typeof orgs)[0], (typeof orgs)[0], (typeof orgs)[0]];
  const api = (path: string, body: unknown, key = apiKey) => send(srv.base, key, { method: "POST", path, body });
  const out: Record<string, LoadResult> = {};
  const measure = async (key: string, name: string, calls: Call[], withKey = apiKey) => {
    out[key] = await measured(srv, withKey, cpu, name, calls);
    if (out[key]!.non2xx) console.log(`    ${key}: ${out[key]!.non2xx} answers were not 2xx`);
    const r = out[key]!;
    console.log(
      `  ${key.padEnd(26)} ${String(r.rps).padStart(7)} rps  p99 ${r.p99Ms} ms  db/req ${r.dbPerRequest}  non-2xx ${r.non2xx}  cpu ms/req app ${r.appCpuMsPerRequest} db ${r.dbCpuMsPerRequest}`,
    );
  };

  await measure(
    "kyc_start",
    "POST /v1/kyc/start",
    times(n, () => ({ method: "POST", path: "/v1/kyc/start", body: {} })),
    kycA.apiKey,
  );

  const applicants = await prepare(n, async () => {
    const started = (await api("/v1/kyc/start", {}, kycB.apiKey)).body as { verificationUrl: string };
    return new URL(started.verificationUrl).pathname.split("/").pop()!;
  });
  await measure(
    "kyc_callback",
    "KYC review arriving (sandbox provider callback path)",
    applicants.map((a) => ({ method: "POST", path: `/v1/sandbox/kyc/hosted/${a}`, body: { outcome: "approved" } })),
    kycB.apiKey,
  );

  const challenges = await prepare(n, async (i) => {
    const started = (await api("/v1/email/otp/start", { email: `bench-${process.pid}-${i}-${Date.now()}@example.com` })).body as {
      challengeId: string;
      devCode: string;
    };
    return started;
  });
  await measure(
    "otp_confirm",
    "POST /v1/email/otp/confirm",
    challenges.map((c) => ({ method: "POST", path: "/v1/email/otp/confirm", body: { challengeId: c.challengeId, code: c.devCode } })),
  );

  const db = await getDb();
  const binds = await prepare(n, async () => {
    const key = walletKey();
    // A person as an approved KYC leaves it (the review itself is measured above).
    const tenant = { personDid: (await person(db, orgId)).did };
    const account = (await api("/v1/accounts/free", { ownerPublicKey: key.publicKey })).body as { accountDid: string };
    const challenge = (await api("/v1/bind/challenge", { accountDid: account.accountDid, personDid: tenant.personDid })).body as {
      nonce: string;
      payloadToSign: string;
    };
    return {
      accountDid: account.accountDid,
      personDid: tenant.personDid,
      nonce: challenge.nonce,
      signature: walletSign(key.privateKey, challenge.payloadToSign),
    };
  });
  await measure(
    "bind_confirm",
    "POST /v1/bind/confirm",
    binds.map((b) => ({ method: "POST", path: "/v1/bind/confirm", body: b })),
  );

  const flagged = await prepare(n, () => flaggedPerson(db, orgId));
  await measure(
    "aml_clear",
    "POST /v1/aml/clear",
    flagged.map((f) => ({ method: "POST", path: "/v1/aml/clear", body: { subjectDid: f.person.did, reason: "bench: false positive" } })),
  );
  return out;
}

const times = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));

async function prepare<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  await Promise.all(
    times(CONCURRENCY, async () => {
      while (out.length < n) out.push(await make(out.length));
    }),
  );
  return out.slice(0, n);
}

let address = 0;

async function send(base: string, apiKey: string, call: Call) {
  address++;
  const res = await fetch(base + call.path, {
    method: call.method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      // A client address of its own (the bench servers trust loopback's X-Forwarded-For).
      "x-forwarded-for": `198.18.${(address >> 8) & 255}.${address & 255}`,
    },
    body: JSON.stringify(call.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function measured(srv: BenchServer, apiKey: string, cpu: CpuProbe, name: string, calls: Call[]): Promise<LoadResult> {
  await new Promise((r) => setTimeout(r, 500));
  const q0 = await srv.dbQueries();
  const app0 = processCpuMs(srv.child.pid);
  const db0 = await databaseCpu(cpu.admin, cpu.database);
  const latencies: number[] = [];
  let non2xx = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    times(CONCURRENCY, async () => {
      while (next < calls.length) {
        const call = calls[next++]!;
        const s = performance.now();
        const res = await send(srv.base, apiKey, call);
        latencies.push(performance.now() - s);
        if (res.status >= 300) non2xx++;
      }
    }),
  );
  const sec = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 300));
  const queries = (await srv.dbQueries()) - q0;
  const appMs = processCpuMs(srv.child.pid) - app0;
  const dbMs = cpuBetween(db0, await databaseCpu(cpu.admin, cpu.database));
  latencies.sort((a, b) => a - b);
  const n = calls.length;
  return {
    name,
    rps: Math.round(n / sec),
    requests: n,
    p50Ms: Math.round(latencies[Math.floor(n * 0.5)] ?? 0),
    p99Ms: Math.round(latencies[Math.floor(n * 0.99)] ?? 0),
    non2xx,
    errors: 0,
    dbPerRequest: Math.round((queries / n) * 100) / 100,
    appCpuMsPerRequest: Math.round((appMs / n) * 100) / 100,
    dbCpuMsPerRequest: Math.round((dbMs / n) * 100) / 100,
  };
}
