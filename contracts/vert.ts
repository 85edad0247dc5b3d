// Shared by the contract tests: a VeRT chain with the committed WASM + ABI of our contracts.
import fs from "node:fs";
import path from "node:path";
import { type Account, AccountPermission, Blockchain } from "@proton/vert";

/** The committed build of a contract: contracts/<name>/target/<name>.contract.{wasm,abi}. */
export function targetOf(name: string) {
  const base = path.join(import.meta.dirname, name, "target", `${name}.contract`);
  return { wasm: `${base}.wasm`, abi: `${base}.abi` };
}

/** A fresh chain whose clock reads `at`. Cheap (a few milliseconds): tests that need a clean table take their own. */
export function chainAt(at: string): Blockchain {
  const bc = new Blockchain();
  setClock(bc, Date.parse(at));
  return bc;
}

/** Deploys the committed build of contracts/<contract> on the account `name`, ready at once (VeRT loads a path's ABI a tick later). */
export function deploy(bc: Blockchain, name: string, contract: string): Account {
  const target = targetOf(contract);
  return bc.createAccount({
    name,
    wasm: fs.readFileSync(target.wasm),
    abi: JSON.parse(fs.readFileSync(target.abi, "utf8")),
    enableInline: true,
  });
}

/** Adds a permission under active, satisfied by itself, as `eosio::updateauth` would. */
export function addPermission(account: Account, permission: string) {
  account.setPermissions([
    ...account.permissions,
    AccountPermission.from({
      perm_name: permission,
      parent: "active",
      required_auth: { threshold: 1, keys: [], waits: [], accounts: [{ weight: 1, permission: { actor: account.name, permission } }] },
    }),
  ]);
}

/** The chain's clock in seconds since the epoch (what the contracts' currentTimeSec reads). */
export const nowSec = (bc: Blockchain) => Math.floor(bc.timestamp.toMilliseconds() / 1000);

export function setClock(bc: Blockchain, ms: number) {
  // VeRT's TimePoint class (of its own @greymass/eosio), reached through its clock: no second copy of that package to import.
  const TimePoint = bc.timestamp.constructor as unknown as { fromMilliseconds(ms: number): Blockchain["timestamp"] };
  bc.setTime(TimePoint.fromMilliseconds(ms));
}

export const addSeconds = (bc: Blockchain, seconds: number) => setClock(bc, bc.timestamp.toMilliseconds() + seconds * 1000);

/** The message a failed send threw ("" when it did not fail). */
export async function failure(send: Promise<unknown>): Promise<string> {
  try {
    await send;
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}
