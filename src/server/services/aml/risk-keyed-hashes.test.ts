import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { clientIpHash, keyedDeviceHash, maskedClientIp } from "../../crypto/risk-hash";
import type { Db } from "../../db/client";
import { accountRow, walletKey } from "../../testing/factories";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { migratePersonData } from "../people";

// Risk assessments keep what they count by as keyed hashes (crypto/risk-hash.ts): the client
// address (with its network in clear) and the device fingerprint ("k1:" and a keyed hash of its
// SHA-256). Rows written before (the address in clear, the plain SHA-256) still count until the
// person data migration rewrites them in place, and count the same after.

async function setup() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  return { url, db, org, api: client(url, org.apiKey) };
}

type RawEvent = { id: string; clientIp: string | null; clientIpHash: string | null; deviceFingerprintHash: string | null };
const rawEvents = (db: any, orgId: string): Promise<RawEvent[]> =>
  db.$queryRaw`SELECT id::text AS id, "clientIp", "clientIpHash", "deviceFingerprintHash" FROM risk_events WHERE "orgId" = ${orgId}::uuid ORDER BY id`;

/** Events written before the keyed hashes: the address in clear, the plain SHA-256 of the fingerprint. */
async function oldEvents(db: any, orgId: string, fp: string, ip: string, subjects: string[]) {
  await db.riskEvent.createMany({
    data: subjects.map((subjectRef, i) => ({
      orgId,
      kind: "manual",
      decision: "allow",
      subjectRef,
      clientIp: ip,
      deviceFingerprintHash: sha256Hex(fp),
      createdAt: new Date(Date.now() - 1000 - i),
    })),
  });
}

/** An account whose device hash was written the old way: a plain SHA-256 of the fingerprint. */
const oldAccount = (db: Db, orgId: string, fp: string) => accountRow(db, orgId, { deviceFingerprintHash: sha256Hex(fp) });

describe("risk events' client addresses and device fingerprints as keyed hashes", () => {
  it("raw rows hold the keyed hashes and the address's network, never the address, the fingerprint or its plain SHA-256", async () => {
    const { db, org, api } = await setup();
    const fp = `fp-${randomUUID()}`;
    const res = await api.post("/v1/risk/assess", { deviceFingerprint: fp, ipAddress: "203.0.113.77", subjectRef: "user-1" });
    expect(res.status, res.text).toBe(200);
    const v6 = await api.post("/v1/risk/assess", { ipAddress: "2001:db8:1234:5678::9" });
    const rows = await rawEvents(db, org.orgId);
    const row = rows.find((r) => r.id === res.body.assessmentId)!;
    expect(row).toEqual({
      id: res.body.assessmentId,
      clientIp: "203.0.113.0/24",
      clientIpHash: clientIpHash(org.orgId, "203.0.113.77"),
      deviceFingerprintHash: keyedDeviceHash(sha256Hex(fp)),
    });
    expect(row.deviceFingerprintHash).toMatch(/^k1:[0-9a-f]{64}$/);
    expect(rows.find((r) => r.id === v6.body.assessmentId)!.clientIp).toBe("2001:db8:1234::/48");
    const dump = JSON.stringify(await db.$queryRaw`SELECT * FROM risk_events WHERE "orgId" = ${org.orgId}::uuid`);
    for (const clear of ["203.0.113.77", "2001:db8:1234:5678", fp, sha256Hex(fp), sha256Hex("203.0.113.77")])
      expect(dump).not.toContain(clear);
    // The hash of an address differs between organizations (counts are per organization).
    expect(clientIpHash(randomUUID(), "203.0.113.77")).not.toBe(row.clientIpHash);

    // Free create writes the same keyed hash on the account.
    const created = await api.post("/v1/accounts/free", { ownerPublicKey: walletKey().publicKey, deviceFingerprint: fp });
    expect(created.status, created.text).toBe(201);
    const [account] = await db.$queryRaw<{ deviceFingerprintHash: string }[]>`
      SELECT "deviceFingerprintHash" FROM accounts WHERE "orgId" = ${org.orgId}::uuid`;
    expect(account!.deviceFingerprintHash).toBe(keyedDeviceHash(sha256Hex(fp)));
  });

  it("velocity by address and by device and one device's subjects count old and new rows alike, and the same after the migration rewrites the old ones in place", async () => {
    const { db, org, api } = await setup();
    const fp = `fp-${randomUUID()}`;
    const ip = "198.51.100.23";
    await oldEvents(db, org.orgId, fp, ip, ["person-0", "person-1"]);
    await oldAccount(db, org.orgId, fp);
    const assess = (subjectRef: string) => api.post("/v1/risk/assess", { deviceFingerprint: fp, ipAddress: ip, subjectRef });
    // New-form rows beside the old ones.
    await assess("person-2");
    const before = await assess("person-3");
    // 3 earlier events (2 old, 1 new); subjects: the account, person-0..3.
    expect(before.body.signals).toMatchObject({ deviceEvents1h: 3, deviceEvents24h: 3, ipEvents1h: 3, sharedDeviceSubjects: 5 });
    expect(before.body.reasons.find((r: any) => r.code === "shared_device").weight).toBe(60);

    const oldIds = (await rawEvents(db, org.orgId)).filter((r) => r.clientIp === ip).map((r) => r.id);
    expect(oldIds).toHaveLength(2);
    const migrated = await migratePersonData(db);
    expect(migrated.remaining).toMatchObject({ risk: 0, devices: 0 });
    expect(migrated.resealed).toBeGreaterThanOrEqual(3);
    const after = await rawEvents(db, org.orgId);
    for (const id of oldIds) {
      expect(after.find((r) => r.id === id)).toEqual({
        id,
        clientIp: maskedClientIp(ip),
        clientIpHash: clientIpHash(org.orgId, ip),
        deviceFingerprintHash: keyedDeviceHash(sha256Hex(fp)),
      });
    }
    const [account] = await db.$queryRaw<{ deviceFingerprintHash: string }[]>`
      SELECT "deviceFingerprintHash" FROM accounts WHERE "orgId" = ${org.orgId}::uuid`;
    expect(account!.deviceFingerprintHash).toBe(keyedDeviceHash(sha256Hex(fp)));
    expect(JSON.stringify(after)).not.toContain(ip);

    // The same subject again: one more event counted, the same subjects.
    const again = await assess("person-3");
    expect(again.body.signals).toMatchObject({ deviceEvents1h: 4, deviceEvents24h: 4, ipEvents1h: 4, sharedDeviceSubjects: 5 });
    // A second pass finds nothing left to do.
    expect(await migratePersonData(db)).toMatchObject({ resealed: 0, remaining: { risk: 0, devices: 0 } });
  });

  it("leaves a row the erasure blanked as it is", async () => {
    const { db, org } = await setup();
    const fp = `fp-${randomUUID()}`;
    await oldEvents(db, org.orgId, fp, "192.0.2.44", ["s"]);
    const [row] = await rawEvents(db, org.orgId);
    await db.riskEvent.update({ where: { id: row!.id }, data: { clientIp: null, deviceFingerprintHash: null } });
    await migratePersonData(db);
    expect((await rawEvents(db, org.orgId))[0]).toEqual({ id: row!.id, clientIp: null, clientIpHash: null, deviceFingerprintHash: null });
  });
});
