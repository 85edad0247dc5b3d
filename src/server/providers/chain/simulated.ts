import { createHash } from "node:crypto";
import { Asset } from "@wharfkit/antelope";
import { env } from "@/env";
import { type DbOrTx, Prisma, rawQuery } from "../../db/client";
import { notFound } from "../../errors";
import type { AuthorityJson } from "./abi";
import { invalidChainInput, isValidAccountName, nameTaken, randomTransactionId, requireKey, requireName } from "./keys";
import { simulatedAuthorities } from "./simulated-updateauth";
import type { ChainAccountState, ChainAdapter } from "./types";

/** The faucet of the sandbox chain: it creates every account and cosigns its owner permission. */
export const SANDBOX_FAUCET = "faucet.bi";
export const SANDBOX_COSIGNER = `${SANDBOX_FAUCET}@active`;
export const SANDBOX_CHAIN_ID = createHash("sha256").update("bind-identity sandbox chain").digest("hex");

export type SimulatedChain = ChainAdapter & {
  /** Sandbox helper: a token transfer, irreversible after SANDBOX_CHAIN_FINALITY_SEC. */
  recordTransfer(input: { from: string; to: string; quantity: string; memo: string }): Promise<{ transactionId: string }>;
};

/**
 * The sandbox chain, kept in our own database. It takes a Db or a transaction client so that the
 * accounts service can create the chain account in the same transaction as its own rows: a
 * rollback then leaves no orphan account on the simulated chain.
 */
export function createSimulatedChain(db: DbOrTx, opts: { now?: () => Date } = {}): SimulatedChain {
  const now = opts.now ?? (() => new Date());

  return {
    chain: "sandbox",

    async getInfo() {
      // One block every half second, like the chains it stands in for.
      return { chainId: SANDBOX_CHAIN_ID, headBlockNum: Math.floor(now().getTime() / 500) };
    },

    async getAccount(name) {
      if (!isValidAccountName(name)) return null;
      const row = await db.simChainAccount.findUnique({ where: { name } });
      if (!row) return null;
      const state: ChainAccountState = {
        name: row.name,
        ownerKeys: row.ownerKeys,
        activeKeys: row.activeKeys,
        ownerCosigner: row.ownerCosigner,
        createdAt: row.createdAt.toISOString(),
        permissions: simulatedAuthorities(row),
      };
      return state;
    },

    async createAccount(input) {
      const name = requireName(input.name, "name");
      const ownerKey = requireKey(input.ownerKey, "ownerKey");
      const activeKey = requireKey(input.activeKey, "activeKey");
      // One statement that inserts nothing when the name exists, so a taken name never aborts a
      // caller's transaction (the chain refuses it as a node would).
      const created = await rawQuery<{ name: string }>(
        db,
        Prisma.sql`
        INSERT INTO sim_chain_accounts (name, "ownerKeys", "activeKeys", "ownerCosigner", creator, "createdAt")
        VALUES (${name}, ARRAY[${ownerKey}]::text[], ARRAY[${activeKey}]::text[], ${SANDBOX_COSIGNER}, ${SANDBOX_FAUCET},
                ${now().toISOString()}::timestamptz AT TIME ZONE 'UTC')
        ON CONFLICT (name) DO NOTHING
        RETURNING name`,
        { prepare: true },
      );
      if (created.length === 0) throw nameTaken();
      return { transactionId: randomTransactionId() };
    },

    async removeCosigner(name) {
      const row = isValidAccountName(name) ? await db.simChainAccount.findUnique({ where: { name } }) : null;
      if (!row) throw notFound("The chain account");
      if (row.ownerCosigner === null) return { transactionId: "" };
      const stored = row.authorities as Record<string, AuthorityJson> | null;
      const owner = stored?.owner;
      const authorities = owner
        ? {
            ...stored,
            owner: {
              ...owner,
              accounts: owner.accounts.filter((a) => `${a.permission.actor}@${a.permission.permission}` !== row.ownerCosigner),
            },
          }
        : undefined;
      await db.simChainAccount.update({ where: { name }, data: { ownerCosigner: null, ...(authorities ? { authorities } : {}) } });
      return { transactionId: randomTransactionId() };
    },

    async getTransfer(txId) {
      if (!/^[0-9a-f]{64}$/i.test(txId)) return null;
      const row = await db.simChainTransfer.findUnique({ where: { id: txId.toLowerCase() } });
      if (!row) return null;
      return {
        id: row.id,
        from: row.from,
        to: row.to,
        quantity: row.quantity,
        memo: row.memo,
        irreversible: now().getTime() >= row.irreversibleAt.getTime(),
      };
    },

    async recordTransfer(input) {
      const from = requireName(input.from, "from");
      const to = requireName(input.to, "to");
      let asset: Asset | undefined;
      try {
        asset = Asset.from(input.quantity);
      } catch {
        asset = undefined;
      }
      // eosio.token refuses zero and negative transfers.
      if (!asset || !(asset.value > 0)) throw invalidChainInput("quantity", 'must be a positive asset such as "1.0000 EOS"');
      const quantity = asset.toString();
      // eosio.token refuses memos over 256 bytes; the simulation should too.
      if (Buffer.byteLength(input.memo, "utf8") > 256) throw invalidChainInput("memo", "must be at most 256 bytes");
      const at = now();
      const id = randomTransactionId();
      await db.simChainTransfer.create({
        data: {
          id,
          from,
          to,
          quantity,
          memo: input.memo,
          createdAt: at,
          irreversibleAt: new Date(at.getTime() + env().SANDBOX_CHAIN_FINALITY_SEC * 1000),
        },
      });
      return { transactionId: id };
    },
  };
}
