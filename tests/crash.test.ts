import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/server/db/client";
import { flaggedPerson } from "@/server/testing/aml";
import { walletKey } from "@/server/testing/factories";
import { call, client, createTestOrg } from "@/server/testing/harness";
import { type Instance, startInstance, stopInstance, within } from "@/server/testing/instance";
import { type Receiver, startReceiver } from "@/server/testing/webhook-receiver";

// An instance killed with SIGKILL in the middle of a mixed write load (free creates, policy
// changes, KYC reviews arriving through the provider callback path, AML clears), then a fresh
// instance on the same database: every write that was acknowledged is there, the audit chain
// verifies, and every acknowledged account's event reaches the receiver.

const JOBS = {
  BI_RUN_JOBS: "true",
  WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  WEBHOOK_BACKOFF_BASE_MS: "50",
  WEBHOOK_TIMEOUT_MS: "2000",
};

let receiver: Receiver | undefined;
const instances: Instance[] = [];
afterAll(async () => {
  receiver?.close();
  for (const i of instances) await stopInstance(i, "SIGKILL");
});

const accountCreated = (raw: Buffer) => {
  const body = JSON.parse(raw.toString("utf8")) as { event: string; payload: { accountDid?: string } };
  return body.event === "account.created" ? body.payload.accountDid : undefined;
};

describe("SIGKILL under write load", () => {
  it("loses no acknowledged write, keeps the audit chain whole, and delivers every acknowledged event after a restart", async () => {
    const org = await createTestOrg({ plan: "institutional" });
    receiver = await startReceiver();
    const first = await startInstance(JOBS);
    instances.push(first);
    const api = client(first.base, org.apiKey);
    expect((await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["account.created"] })).status).toBe(201);

    const db = await getDb();
    // One at a time: forty parallel set-up transactions can outwait the pool on a loaded machine.
    const flagged: Awaited<ReturnType<typeof flaggedPerson>>[] = [];
    for (let i = 0; i < 40; i++) flagged.push(await flaggedPerson(db, org.orgId));
    const acknowledged: string[] = [];
    const approved: string[] = [];
    const cleared: string[] = [];
    let policyWrites = 0;
    let killed = false;
    const writer = async (n: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const kind = (i + n) % 4;
          if (kind === 0) {
            const r = await api.patch("/v1/admin/tenant/policy", { requireSecondApprovalToClearAml: false });
            if (r.status === 200) policyWrites++;
          } else if (kind === 1) {
            const r = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey });
            if (r.status === 201) acknowledged.push(r.body.accountDid as string);
          } else if (kind === 2) {
            const started = await api.post("/v1/kyc/start", {});
            const applicant = new URL(started.body.verificationUrl).pathname.split("/").pop()!;
            const r = await call(first.base, "POST", `/v1/sandbox/kyc/hosted/${applicant}`, { body: { outcome: "approved" } });
            if (r.status === 200) approved.push(started.body.personDid as string);
          } else {
            const next = flagged.shift();
            if (!next) continue;
            const r = await api.post("/v1/aml/clear", { subjectDid: next.person.did, reason: "crash run: false positive" });
            if (r.status === 200 && r.body.cleared) cleared.push(next.person.id);
          }
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, n) => writer(n)));
    await within(20_000, async () => acknowledged.length >= 10 && approved.length >= 5 && cleared.length >= 5);
    first.child.kill("SIGKILL");
    killed = true;
    await load;
    await first.exited;
    expect(first.child.signalCode).toBe("SIGKILL");
    expect([acknowledged.length, approved.length, cleared.length].every((n) => n >= 5)).toBe(true);

    const second = await startInstance(JOBS);
    instances.push(second);
    const again = client(second.base, org.apiKey);
    for (const did of acknowledged) expect((await again.get(`/v1/accounts/${encodeURIComponent(did)}`)).status, did).toBe(200);
    const verified = await again.post("/v1/compliance/audit/verify");
    expect(verified.status).toBe(200);
    expect(verified.body.valid).toBe(true);
    expect(policyWrites).toBeGreaterThan(0);
    for (const personDid of approved) {
      const status = await again.get(`/v1/kyc/status?personDid=${encodeURIComponent(personDid)}`);
      expect(status.body.status, personDid).toBe("approved");
    }
    for (const id of cleared) {
      expect(await db.person.findUniqueOrThrow({ where: { id } })).toMatchObject({ pepFlag: false, sanctionsFlag: false });
      expect((await db.amlCase.findFirstOrThrow({ where: { personId: id } })).status).toBe("cleared");
    }

    const delivered = () => new Set(receiver!.received.map((r) => accountCreated(r.raw)).filter(Boolean));
    const took = await within(60_000, async () => acknowledged.every((did) => delivered().has(did)), 200);
    expect(took, `${acknowledged.filter((d) => !delivered().has(d)).length} acknowledged accounts never delivered`).not.toBeNull();
  }, 180_000);
});
