import { PrivateKey } from "@wharfkit/antelope";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { type Db, getDb } from "../../db/client";
import { isAppError } from "../../errors";
import { generateAccountName } from "./keys";
import { createSimulatedChain, SANDBOX_COSIGNER, SANDBOX_FAUCET } from "./simulated";

let db: Db;
beforeAll(async () => {
  db = await getDb();
});

const pub = (type: "K1" | "R1" = "K1") => PrivateKey.generate(type).toPublic();
const caught = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );

describe("simulated chain accounts", () => {
  it("creates the account in the database with normalised keys and the faucet cosigner", async () => {
    const chain = createSimulatedChain(db);
    const owner = pub("K1");
    const active = pub("R1");
    const name = generateAccountName();
    const out = await chain.createAccount({ name, ownerKey: owner.toLegacyString(), activeKey: active.toString() });
    expect(out.transactionId).toMatch(/^[0-9a-f]{64}$/);

    const row = await db.simChainAccount.findUniqueOrThrow({ where: { name } });
    expect(row.ownerKeys).toEqual([owner.toString()]);
    expect(row.activeKeys).toEqual([active.toString()]);
    expect(row.ownerCosigner).toBe(SANDBOX_COSIGNER);
    expect(row.creator).toBe(SANDBOX_FAUCET);

    const state = await chain.getAccount(name);
    expect(state).toEqual({
      name,
      ownerKeys: [owner.toString()],
      activeKeys: [active.toString()],
      ownerCosigner: SANDBOX_COSIGNER,
      createdAt: row.createdAt.toISOString(),
      // As a node's get_account shows them: owner is the user's key or the faucet, active the active key.
      permissions: {
        owner: {
          threshold: 1,
          keys: [{ key: owner.toString(), weight: 1 }],
          accounts: [{ permission: { actor: SANDBOX_FAUCET, permission: "active" }, weight: 1 }],
          waits: [],
        },
        active: { threshold: 1, keys: [{ key: active.toString(), weight: 1 }], accounts: [], waits: [] },
      },
    });
    expect(await chain.getAccount(generateAccountName())).toBeNull();
    expect(await chain.getAccount("Not.Valid")).toBeNull();
    expect(chain.chain).toBe("sandbox");
  });

  it("refuses a name already on the chain and keeps the first owner", async () => {
    const chain = createSimulatedChain(db);
    const name = generateAccountName();
    const first = pub();
    await chain.createAccount({ name, ownerKey: first.toString(), activeKey: first.toString() });
    const err = await caught(chain.createAccount({ name, ownerKey: pub().toString(), activeKey: pub().toString() }));
    expect(isAppError(err) && err.code).toBe("CONFLICT");
    expect(isAppError(err) && err.details).toEqual({ reason: "name_taken" });
    const rows = await db.simChainAccount.findMany({ where: { name } });
    expect(rows.map((r) => r.ownerKeys)).toEqual([[first.toString()]]);
  });

  it("refuses bad names and keys without writing", async () => {
    const chain = createSimulatedChain(db);
    const name = generateAccountName();
    const badKey = await caught(chain.createAccount({ name, ownerKey: "EOSnotakey", activeKey: pub().toString() }));
    expect(isAppError(badKey) && badKey.code).toBe("VALIDATION_ERROR");
    const badName = await caught(chain.createAccount({ name: "trailing.", ownerKey: pub().toString(), activeKey: pub().toString() }));
    expect(isAppError(badName) && badName.code).toBe("VALIDATION_ERROR");
    expect(await db.simChainAccount.count({ where: { name: { in: [name, "trailing."] } } })).toBe(0);
  });

  it("runs inside the caller's transaction: a rollback leaves no account", async () => {
    const name = generateAccountName();
    const key = pub().toString();
    await caught(
      db.$transaction(async (tx) => {
        await createSimulatedChain(tx).createAccount({ name, ownerKey: key, activeKey: key });
        expect(await tx.simChainAccount.count({ where: { name } })).toBe(1);
        throw new Error("caller fails after the chain call");
      }),
    );
    expect(await db.simChainAccount.count({ where: { name } })).toBe(0);
  });

  it("removes the cosigner and keeps the user's keys; a second unlock sends nothing", async () => {
    const chain = createSimulatedChain(db);
    const name = generateAccountName();
    const key = pub().toString();
    await chain.createAccount({ name, ownerKey: key, activeKey: key });
    const out = await chain.removeCosigner(name);
    expect(out.transactionId).toMatch(/^[0-9a-f]{64}$/);
    const row = await db.simChainAccount.findUniqueOrThrow({ where: { name } });
    expect(row.ownerCosigner).toBeNull();
    expect(row.ownerKeys).toEqual([key]);
    expect((await chain.getAccount(name))?.ownerCosigner).toBeNull();
    expect(await chain.removeCosigner(name)).toEqual({ transactionId: "" });
    const missing = await caught(chain.removeCosigner(generateAccountName()));
    expect(isAppError(missing) && missing.code).toBe("NOT_FOUND");
  });
});

describe("simulated chain transfers", () => {
  afterEach(() => {
    delete process.env.SANDBOX_CHAIN_FINALITY_SEC;
    resetEnvCache();
  });

  it("becomes irreversible after SANDBOX_CHAIN_FINALITY_SEC", async () => {
    process.env.SANDBOX_CHAIN_FINALITY_SEC = "5";
    resetEnvCache();
    let clock = new Date("2030-01-01T00:00:00.000Z");
    const chain = createSimulatedChain(db, { now: () => clock });
    const { transactionId } = await chain.recordTransfer({
      from: "payer.bi",
      to: "treasury.bi",
      quantity: "10.0000 EOS",
      memo: "checkout:abc",
    });
    expect(transactionId).toMatch(/^[0-9a-f]{64}$/);

    const row = await db.simChainTransfer.findUniqueOrThrow({ where: { id: transactionId } });
    expect(row.irreversibleAt.getTime() - row.createdAt.getTime()).toBe(5000);
    const expected = { id: transactionId, from: "payer.bi", to: "treasury.bi", quantity: "10.0000 EOS", memo: "checkout:abc" };
    expect(await chain.getTransfer(transactionId)).toEqual({ ...expected, irreversible: false });

    clock = new Date(clock.getTime() + 4999);
    expect((await chain.getTransfer(transactionId))?.irreversible).toBe(false);
    clock = new Date(clock.getTime() + 1);
    expect(await chain.getTransfer(transactionId.toUpperCase())).toEqual({ ...expected, irreversible: true });
  });

  it("uses the real clock by default", async () => {
    process.env.SANDBOX_CHAIN_FINALITY_SEC = "1";
    resetEnvCache();
    const chain = createSimulatedChain(db);
    const { transactionId } = await chain.recordTransfer({ from: "payer.bi", to: "treasury.bi", quantity: "1.0000 EOS", memo: "" });
    expect((await chain.getTransfer(transactionId))?.irreversible).toBe(false);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await chain.getTransfer(transactionId))?.irreversible).toBe(true);
  });

  it("refuses bad transfers and answers null for unknown ids", async () => {
    const chain = createSimulatedChain(db);
    for (const quantity of ["abc", "0.0000 EOS", "-1.0000 EOS"]) {
      const err = await caught(chain.recordTransfer({ from: "payer.bi", to: "treasury.bi", quantity, memo: "" }));
      expect(isAppError(err) && err.code, quantity).toBe("VALIDATION_ERROR");
    }
    const longMemo = await caught(
      chain.recordTransfer({ from: "payer.bi", to: "treasury.bi", quantity: "1.0000 EOS", memo: "x".repeat(257) }),
    );
    expect(isAppError(longMemo) && longMemo.code).toBe("VALIDATION_ERROR");
    expect(await chain.getTransfer("f".repeat(64))).toBeNull();
    expect(await chain.getTransfer("not-an-id")).toBeNull();
  });
});
