import { afterAll, describe, expect, it } from "vitest";
import { getDb, Prisma, type Tx } from "@/server/db/client";
import { bindingVcHash } from "@/server/services/accounts/credentials";
import { didOf, flaggedPerson } from "@/server/testing/aml";
import { approvedPersonWithToken, walletKey, walletSign } from "@/server/testing/factories";
import { call, client, createTestOrg } from "@/server/testing/harness";
import { type Instance, startInstance, stopInstance, within } from "@/server/testing/instance";
import { holdLock, untilStatementWaits } from "@/server/testing/interleave";
import { type Receiver, startReceiver } from "@/server/testing/webhook-receiver";

// An instance killed with SIGKILL in the middle of a mixed write load (free creates, policy
// changes, KYC reviews arriving through the provider callback path, AML clears, bind challenges
// and confirms), then a fresh instance on the same database: every write that was acknowledged is
// there, nothing in flight at the kill is half written, the audit chain verifies, and every
// acknowledged account's event reaches the receiver. The kill lands while a bind confirm's and a
// KYC review's statements are both waiting in the database (held there by a lock of the test's
// own), so the moment is the same on every run: one of them is then ended by the database, the
// other runs once the lock is gone with nobody left to answer.

const JOBS = {
  BI_RUN_JOBS: "true",
  WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  WEBHOOK_BACKOFF_BASE_MS: "50",
  WEBHOOK_TIMEOUT_MS: "2000",
  // The test stands for a proxy, so each KYC start can come from an address of its own (below).
  TRUSTED_PROXIES: "127.0.0.1",
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

type Json = Record<string, unknown> | null;

/** Every row of the organization the bind and KYC review writes touch, read in one snapshot. */
async function rowsOf(tx: Tx, orgId: string) {
  const accounts = await tx.account.findMany({ where: { orgId }, select: { id: true, did: true, lifecycle: true } });
  const bindings = await tx.accountBinding.findMany({ where: { orgId }, include: { statusEntries: true } });
  const nonces = await tx.signatureNonce.findMany({ where: { orgId, purpose: "bind" } });
  const actions = ["identity.bound", "kyc.approved"];
  const audit = await tx.auditEntry.findMany({
    where: { orgId, action: { in: actions } },
    select: { action: true, subject: true, data: true },
  });
  const events = await tx.outboxEvent.findMany({ where: { orgId, event: { in: actions } }, select: { event: true, payload: true } });
  const people = await tx.person.findMany({ where: { orgId }, select: { id: true, kycStatus: true, reviewedAt: true } });
  const sessions = await tx.kycSession.findMany({ where: { orgId }, select: { personId: true, status: true, review: true } });
  return { accounts, bindings, nonces, audit, events, people, sessions };
}
type Rows = Awaited<ReturnType<typeof rowsOf>>;

/**
 * What a bind confirm or a KYC review cut in two would leave, over all the organization's rows:
 * each line names the rule broken and the row. Every rule holds before, during and after either
 * write, so it holds whatever was in flight at a kill; each fails when a part of the write is
 * missing (the test below takes each part away in turn to show it). `fixtures` are people made
 * approved directly in the database, with no review.
 */
function halfWritten(rows: Rows, fixtures: Set<string>): string[] {
  const out: string[] = [];
  const count = <T>(list: T[], match: (x: T) => boolean) => list.filter(match).length;
  const data = (x: unknown) => (x ?? {}) as Record<string, unknown>;
  const active = rows.bindings.filter((b) => b.status === "active");
  const accountById = new Map(rows.accounts.map((a) => [a.id, a]));
  const bindingIds = new Set(rows.bindings.map((b) => b.id));
  const vcHashes = new Set(rows.bindings.map((b) => b.bindingVcHash));

  for (const a of rows.accounts) {
    if (a.lifecycle === "bound" && !active.some((b) => b.accountId === a.id)) out.push(`bound-without-binding ${a.did}`);
  }
  for (const b of rows.bindings) {
    const account = accountById.get(b.accountId);
    const did = account?.did ?? b.accountId;
    if (b.status === "active" && account?.lifecycle !== "bound") out.push(`binding-on-unbound-account ${did} (${account?.lifecycle})`);
    // The stored credential is the one the binding's hash names, and it lists the binding's positions.
    if (bindingVcHash(b.credential) !== b.bindingVcHash) out.push(`binding-credential-not-its-hash ${did}`);
    const listed = ((
      b.credential as { credentialStatus?: { statusPurpose: string; statusListIndex: string; statusListCredential: string }[] }
    )?.credentialStatus ?? []) as { statusPurpose: string; statusListIndex: string; statusListCredential: string }[];
    const entries = b.statusEntries.map((e) => e.purpose).sort();
    if (entries.join() !== "revocation,suspension") out.push(`binding-status-entries ${did} [${entries}]`);
    for (const e of b.statusEntries) {
      const inCredential = listed.some(
        (l) => l.statusPurpose === e.purpose && l.statusListIndex === String(e.index) && l.statusListCredential.includes(e.listId),
      );
      if (!inCredential) out.push(`status-entry-not-in-credential ${did} ${e.purpose}`);
    }
    const entriesOf = count(rows.audit, (x) => x.action === "identity.bound" && data(x.data).bindingId === b.id && x.subject === did);
    if (entriesOf !== 1) out.push(`binding-audit-entries ${did} ${entriesOf}`);
    const eventsOf = count(
      rows.events,
      (x) => x.event === "identity.bound" && data(x.payload).bindingVcHash === b.bindingVcHash && data(x.payload).accountDid === did,
    );
    if (eventsOf !== 1) out.push(`binding-events ${did} ${eventsOf}`);
    const spent = count(rows.nonces, (n) => n.accountId === b.accountId && n.personId === b.personId && n.consumedAt !== null);
    if (spent !== 1) out.push(`binding-spent-nonces ${did} ${spent}`);
  }
  for (const n of rows.nonces) {
    const bound = rows.bindings.some((b) => b.accountId === n.accountId && b.personId === n.personId);
    if (n.consumedAt && !bound) out.push(`spent-nonce-without-binding ${accountById.get(n.accountId)?.did}`);
  }
  for (const x of rows.audit) {
    if (x.action === "identity.bound" && !bindingIds.has(data(x.data).bindingId as string))
      out.push(`audit-entry-without-binding ${x.subject}`);
  }
  for (const x of rows.events) {
    if (x.event === "identity.bound" && !vcHashes.has(data(x.payload).bindingVcHash as string))
      out.push(`event-without-binding ${data(x.payload).accountDid}`);
  }

  const approvedDids = new Set<string>();
  for (const p of rows.people) {
    if (fixtures.has(p.id)) continue;
    const did = didOf(p.id);
    const approved = p.kycStatus === "approved";
    if (approved) approvedDids.add(did);
    const reviewed = rows.sessions.some((s) => s.personId === p.id && s.status === "approved" && (s.review as Json)?.status === "approved");
    if (approved && !(reviewed && p.reviewedAt)) out.push(`approved-without-review ${did}`);
    if (!approved && reviewed) out.push(`review-without-approval ${did} (${p.kycStatus})`);
    const entries = count(rows.audit, (x) => x.action === "kyc.approved" && x.subject === did);
    const events = count(rows.events, (x) => x.event === "kyc.approved" && data(x.payload).personDid === did);
    if (approved && entries !== 1) out.push(`approval-audit-entries ${did} ${entries}`);
    if (approved && events !== 1) out.push(`approval-events ${did} ${events}`);
  }
  for (const x of rows.audit) {
    if (x.action === "kyc.approved" && !approvedDids.has(x.subject!)) out.push(`approval-audit-entry-without-approval ${x.subject}`);
  }
  for (const x of rows.events) {
    const did = data(x.payload).personDid as string;
    if (x.event === "kyc.approved" && !approvedDids.has(did)) out.push(`approval-event-without-approval ${did}`);
  }
  return out;
}

describe("SIGKILL under write load", () => {
  it("loses no acknowledged write, leaves nothing half written, keeps the audit chain whole, and delivers every acknowledged event after a restart", async () => {
    const org = await createTestOrg({ plan: "institutional" });
    receiver = await startReceiver();
    const first = await startInstance(JOBS);
    instances.push(first);
    const api = client(first.base, org.apiKey);
    // KYC starts are limited per client address (20 an hour): each of the load's comes from another
    // forwarded address, so however long the load runs on a slow machine its starts are not refused.
    let addresses = 0;
    const starter: typeof api = {
      ...api,
      post: (path, body, o = {}) => {
        addresses++;
        const forwarded = `10.${(addresses >> 8) & 255}.${addresses & 255}.1`;
        return api.post(path, body, { ...o, headers: { ...o.headers, "x-forwarded-for": forwarded } });
      },
    };
    expect((await api.post("/v1/admin/webhooks", { url: receiver.url, events: ["account.created"] })).status).toBe(201);

    const db = await getDb();
    // One at a time: forty parallel set-up transactions can outwait the pool on a loaded machine.
    const flagged: Awaited<ReturnType<typeof flaggedPerson>>[] = [];
    const makeFlagged = async () => {
      for (let i = 0; i < 40; i++) flagged.push(await flaggedPerson(db, org.orgId));
    };
    // Accounts ready to bind, made before the load so that its bind writers only ask for a
    // challenge and confirm it: a person approved in the database (a fixture, as the flagged ones;
    // the load's own reviews are what the KYC checks below look at) and a free account created with
    // their token. More than the load needs before the kill, so binds are still going when it lands.
    const ready: { accountDid: string; personDid: string; wallet: ReturnType<typeof walletKey> }[] = [];
    const fixtures = new Set<string>();
    const READY = 24;
    let toMake = READY;
    const makeReady = async () => {
      while (toMake > 0) {
        toMake--;
        const { person, token } = await approvedPersonWithToken(org.orgId);
        fixtures.add(person.id);
        const wallet = walletKey();
        const personDid = didOf(person.id);
        const created = await api.post("/v1/accounts/free", { ownerPublicKey: wallet.publicKey, kycCreateToken: token, personDid });
        expect(created.status, created.text).toBe(201);
        ready.push({ accountDid: created.body.accountDid as string, personDid, wallet });
      }
    };
    await Promise.all([makeFlagged(), makeReady(), makeReady(), makeReady()]);
    for (const f of flagged) fixtures.add(f.person.id);
    // Kept for the confirm the kill lands on.
    const heldBind = ready.pop()!;

    const acknowledged: string[] = [];
    const approved: string[] = [];
    const cleared: string[] = [];
    const bound: { accountDid: string; nonce: string; answer: { credential: unknown; bindingVcHash: string } }[] = [];
    let policyWrites = 0;
    let killed = false;
    // The load pauses between two of its requests while the test puts its own confirm and review
    // in place; `sent` counts the requests it sends after that.
    let paused = false;
    let idle = 0;
    let sent = 0;
    const WRITERS = 6;
    const writer = async (n: number) => {
      for (let i = 0; !killed; i++) {
        if (paused) {
          idle++;
          while (paused && !killed) await new Promise((r) => setTimeout(r, 5));
          idle--;
        }
        sent++;
        try {
          const kind = (i + n) % 5;
          if (kind === 0) {
            const r = await api.patch("/v1/admin/tenant/policy", { requireSecondApprovalToClearAml: false });
            if (r.status === 200) policyWrites++;
          } else if (kind === 1) {
            const r = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey });
            if (r.status === 201) acknowledged.push(r.body.accountDid as string);
          } else if (kind === 2) {
            const started = await starter.post("/v1/kyc/start", {});
            if (started.status !== 200) continue;
            const applicant = new URL(started.body.verificationUrl).pathname.split("/").pop()!;
            const r = await call(first.base, "POST", `/v1/sandbox/kyc/hosted/${applicant}`, { body: { outcome: "approved" } });
            if (r.status === 200) approved.push(started.body.personDid as string);
          } else if (kind === 3) {
            const next = flagged.shift();
            if (!next) continue;
            const r = await api.post("/v1/aml/clear", { subjectDid: next.person.did, reason: "crash run: false positive" });
            if (r.status === 200 && r.body.cleared) cleared.push(next.person.id);
          } else {
            // Paced by the slowest other kind, so the prepared accounts last until the kill however
            // fast binds go on this machine compared with the rest.
            const slowest = Math.min(acknowledged.length / 2, approved.length, cleared.length);
            if (READY - ready.length >= slowest + 8) continue;
            const next = ready.shift();
            if (!next) continue;
            const { accountDid, personDid, wallet } = next;
            const challenge = await api.post("/v1/bind/challenge", { accountDid, personDid });
            if (challenge.status !== 200) continue;
            const { nonce, payloadToSign } = challenge.body;
            const r = await api.post("/v1/bind/confirm", {
              accountDid,
              personDid,
              nonce,
              signature: walletSign(wallet.privateKey, payloadToSign),
            });
            if (r.status === 200) bound.push({ accountDid, nonce, answer: r.body });
          }
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const load = Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
    // Once each kind has been acknowledged several times (the counts only grow).
    const enough = () => acknowledged.length >= 10 && approved.length >= 5 && cleared.length >= 5 && bound.length >= 5;
    const counts = () =>
      JSON.stringify({ acknowledged: acknowledged.length, approved: approved.length, cleared: cleared.length, bound: bound.length });
    expect(await within(60_000, async () => enough(), 50), counts()).not.toBeNull();

    // The kill's moment. A second organization's KYC review, since an organization's grouped
    // writes reach the database one statement at a time (services/audit/group-commit.ts) and the
    // confirm's statement holds this organization's turn.
    const other = await createTestOrg({ plan: "institutional" });
    const otherStarted = await client(first.base, other.apiKey).post(
      "/v1/kyc/start",
      {},
      { headers: { "x-forwarded-for": "10.255.255.1" } },
    );
    expect(otherStarted.status, otherStarted.text).toBe(200);
    const otherPersonDid = otherStarted.body.personDid as string;
    const otherApplicant = new URL(otherStarted.body.verificationUrl).pathname.split("/").pop()!;
    const heldChallenge = await api.post("/v1/bind/challenge", { accountDid: heldBind.accountDid, personDid: heldBind.personDid });
    expect(heldChallenge.status, heldChallenge.text).toBe(200);
    const heldConfirm = {
      accountDid: heldBind.accountDid,
      personDid: heldBind.personDid,
      nonce: heldChallenge.body.nonce as string,
      signature: walletSign(heldBind.wallet.privateKey, heldChallenge.body.payloadToSign),
    };
    // The load between two requests, so nothing of this organization is ahead of the confirm.
    paused = true;
    expect(await within(30_000, async () => idle === WRITERS, 5)).not.toBeNull();
    // Both organizations' chain heads held: the confirm's and the review's statements are sent and wait for them.
    const heads = await holdLock(`SELECT "orgId" FROM audit_heads WHERE "orgId" = ANY($1::uuid[]) FOR UPDATE`, [[org.orgId, other.orgId]]);
    const unanswered = (p: Promise<unknown>) =>
      p.then(
        (r) => ({ answered: r }),
        () => ({ answered: null }),
      );
    const confirmAtKill = unanswered(api.post("/v1/bind/confirm", heldConfirm));
    const reviewAtKill = unanswered(
      call(first.base, "POST", `/v1/sandbox/kyc/hosted/${otherApplicant}`, { body: { outcome: "approved" } }),
    );
    const CONFIRM = ["audit_heads", "signature_nonces"];
    const REVIEW = ["audit_heads", "UPDATE people SET"];
    await untilStatementWaits(db, CONFIRM);
    await untilStatementWaits(db, REVIEW);
    // The load goes on, its writes queued behind the confirm's.
    const sentBefore = sent;
    paused = false;
    expect(await within(30_000, async () => sent >= sentBefore + WRITERS, 5)).not.toBeNull();
    first.child.kill("SIGKILL");
    killed = true;
    await load;
    await first.exited;
    expect(await confirmAtKill).toEqual({ answered: null });
    expect(await reviewAtKill).toEqual({ answered: null });
    // The confirm's statement is ended before it runs (as when the database drops the dead
    // client's session); the review's runs once the heads are let go, its client gone.
    const waiting = (fragments: string[], lockedOnly = false) =>
      db.$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE ALL(${fragments.map((f) => `%${f}%`)}::text[]) AND pid <> pg_backend_pid()
          AND (wait_event_type = 'Lock' OR NOT ${lockedOnly})`;
    const [confirmSession, ...more] = await waiting(CONFIRM, true);
    expect(more).toEqual([]);
    expect(confirmSession).toBeDefined();
    await db.$queryRaw`SELECT pg_terminate_backend(${confirmSession!.pid}::int)`;
    await heads.release();
    expect(
      await within(30_000, async () => (await waiting(REVIEW)).length === 0 && (await waiting(CONFIRM)).length === 0, 20),
    ).not.toBeNull();
    expect(first.child.signalCode).toBe("SIGKILL");
    expect([acknowledged.length, approved.length, cleared.length, bound.length].every((n) => n >= 5)).toBe(true);

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

    // One snapshot of the organization's rows (the new instance's jobs go on writing meanwhile).
    const rows = await db.$transaction((tx) => rowsOf(tx, org.orgId), { isolationLevel: "RepeatableRead" });
    // Every acknowledged confirm: its binding with the credential it answered, both status
    // positions, the account bound, its nonce spent, one event and one audit entry.
    for (const { accountDid, nonce, answer } of bound) {
      const account = rows.accounts.find((a) => a.did === accountDid)!;
      expect(account.lifecycle, accountDid).toBe("bound");
      const bindings = rows.bindings.filter((b) => b.accountId === account.id && b.status === "active");
      expect(bindings, accountDid).toHaveLength(1);
      const binding = bindings[0]!;
      expect(binding.bindingVcHash, accountDid).toBe(answer.bindingVcHash);
      expect(binding.credential, accountDid).toEqual(answer.credential);
      expect(binding.statusEntries.map((e) => e.purpose).sort(), accountDid).toEqual(["revocation", "suspension"]);
      expect(rows.nonces.find((n) => n.nonce === nonce)?.consumedAt, accountDid).toBeInstanceOf(Date);
      const events = rows.events.filter((e) => e.event === "identity.bound" && (e.payload as Json)?.accountDid === accountDid);
      expect(events, accountDid).toHaveLength(1);
      expect(
        rows.audit.filter((x) => x.action === "identity.bound" && x.subject === accountDid),
        accountDid,
      ).toHaveLength(1);
    }
    // Every acknowledged approval: the person approved, their session's review written, one entry, one event.
    for (const personDid of approved) {
      const person = rows.people.find((p) => didOf(p.id) === personDid)!;
      expect(person.kycStatus, personDid).toBe("approved");
      expect(
        rows.sessions.filter((s) => s.personId === person.id && (s.review as Json)?.status === "approved"),
        personDid,
      ).toHaveLength(1);
      expect(
        rows.audit.filter((x) => x.action === "kyc.approved" && x.subject === personDid),
        personDid,
      ).toHaveLength(1);
      expect(
        rows.events.filter((e) => e.event === "kyc.approved" && (e.payload as Json)?.personDid === personDid),
        personDid,
      ).toHaveLength(1);
    }
    // Whatever was in flight at the kill: nothing half written anywhere in the organization.
    expect(halfWritten(rows, fixtures)).toEqual([]);
    // The confirm ended at the kill left nothing behind: the account unbound, its nonce unspent.
    const heldAccount = rows.accounts.find((a) => a.did === heldBind.accountDid)!;
    expect(heldAccount.lifecycle).toBe("provisional");
    expect(rows.bindings.filter((x) => x.accountId === heldAccount.id)).toEqual([]);
    expect(rows.nonces.find((n) => n.nonce === heldConfirm.nonce)?.consumedAt).toBeNull();
    // The review that ran after the kill is whole: approved, its session reviewed, one entry, one event, a valid chain.
    const otherRows = await db.$transaction((tx) => rowsOf(tx, other.orgId), { isolationLevel: "RepeatableRead" });
    expect(otherRows.people.find((p) => didOf(p.id) === otherPersonDid)?.kycStatus).toBe("approved");
    expect(halfWritten(otherRows, new Set())).toEqual([]);
    const otherVerified = await client(second.base, other.apiKey).post("/v1/compliance/audit/verify");
    expect(otherVerified.body.valid).toBe(true);

    // Each rule catches the part of a write it stands for: take that part away from one binding
    // or one approval (in a transaction rolled back), and the rule must name it.
    const [b] = bound;
    const accountId = rows.accounts.find((a) => a.did === b!.accountDid)!.id;
    const credential = rows.bindings.find((x) => x.accountId === accountId)!.credential as {
      credentialStatus: { statusPurpose: string }[];
    };
    const revocationOnly = { ...credential, credentialStatus: credential.credentialStatus.filter((e) => e.statusPurpose === "revocation") };
    const personId = rows.people.find((p) => didOf(p.id) === approved[0])!.id;
    const splits: [string, (tx: Tx) => Promise<unknown>][] = [
      ["binding-spent-nonces", (tx) => tx.signatureNonce.update({ where: { nonce: b!.nonce }, data: { consumedAt: null } })],
      ["binding-on-unbound-account", (tx) => tx.account.update({ where: { id: accountId }, data: { lifecycle: "provisional" } })],
      ["bound-without-binding", (tx) => tx.accountBinding.deleteMany({ where: { accountId } })],
      ["spent-nonce-without-binding", (tx) => tx.accountBinding.deleteMany({ where: { accountId } })],
      ["audit-entry-without-binding", (tx) => tx.accountBinding.deleteMany({ where: { accountId } })],
      ["event-without-binding", (tx) => tx.accountBinding.deleteMany({ where: { accountId } })],
      ["binding-credential-not-its-hash", (tx) => tx.accountBinding.updateMany({ where: { accountId }, data: { credential: {} } })],
      [
        "status-entry-not-in-credential",
        (tx) => tx.accountBinding.updateMany({ where: { accountId }, data: { credential: revocationOnly } }),
      ],
      [
        "binding-status-entries",
        (tx) =>
          tx.credentialStatusEntry.updateMany({ where: { binding: { accountId }, purpose: "suspension" }, data: { bindingId: null } }),
      ],
      [
        "binding-events",
        (tx) => tx.outboxEvent.deleteMany({ where: { event: "identity.bound", payload: { path: ["accountDid"], equals: b!.accountDid } } }),
      ],
      [
        "binding-audit-entries",
        (tx) => tx.auditEntry.deleteMany({ where: { orgId: org.orgId, action: "identity.bound", subject: b!.accountDid } }),
      ],
      ["approved-without-review", (tx) => tx.kycSession.updateMany({ where: { personId }, data: { review: Prisma.DbNull } })],
      ["review-without-approval", (tx) => tx.person.update({ where: { id: personId }, data: { kycStatus: "pending" } })],
      ["approval-audit-entry-without-approval", (tx) => tx.person.update({ where: { id: personId }, data: { kycStatus: "pending" } })],
      ["approval-event-without-approval", (tx) => tx.person.update({ where: { id: personId }, data: { kycStatus: "pending" } })],
      [
        "approval-audit-entries",
        (tx) => tx.auditEntry.deleteMany({ where: { orgId: org.orgId, action: "kyc.approved", subject: approved[0] } }),
      ],
      [
        "approval-events",
        (tx) => tx.outboxEvent.deleteMany({ where: { event: "kyc.approved", payload: { path: ["personDid"], equals: approved[0] } } }),
      ],
    ];
    for (const [rule, split] of splits) {
      const found = await db
        .$transaction(async (tx) => {
          await split(tx);
          throw Object.assign(new Error("roll back"), { found: halfWritten(await rowsOf(tx, org.orgId), fixtures) });
        })
        .catch((err: { found?: string[] }) => err.found ?? Promise.reject(err));
      expect(
        found.filter((v) => v.startsWith(`${rule} `)),
        rule,
      ).toHaveLength(1);
    }

    // The confirm ended at the kill can be sent again as it was, and binds.
    const retried = await again.post("/v1/bind/confirm", heldConfirm);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.accountDid).toBe(heldBind.accountDid);

    const delivered = () => new Set(receiver!.received.map((r) => accountCreated(r.raw)).filter(Boolean));
    const took = await within(60_000, async () => acknowledged.every((did) => delivered().has(did)), 200);
    expect(took, `${acknowledged.filter((d) => !delivered().has(d)).length} acknowledged accounts never delivered`).not.toBeNull();
  }, 180_000);
});
