import { Action, PublicKey } from "@wharfkit/antelope";
import { describe, expect, it } from "vitest";
import { SYSTEM_ABI } from "./abi";

// Action data as real nodes and cleos serialised it (published traces and nodeos fixtures), so
// the ABI is pinned to the chain's wire format, not only to our own fake node.
const encode = (name: string, data: Record<string, unknown>) =>
  Action.from({ account: "eosio", name, authorization: [], data }, SYSTEM_ABI).data.hexString;
const keyFromHex = (hex: string) => PublicKey.from({ type: "K1", compressed: Buffer.from(hex, "hex") }).toString();
const auth = (key: string) => ({ threshold: 1, keys: [{ key, weight: 1 }], accounts: [], waits: [] });

describe("eosio system ABI wire format", () => {
  it("buyrambytes matches a mainnet trace", () => {
    expect(encode("buyrambytes", { payer: "yvngxrjzbf3w", receiver: "moyqjj2eqwli", bytes: 8192 })).toBe(
      "c0c73affddcee6f6e022b74abc673d9500200000",
    );
  });

  it("newaccount matches nodeos' serialisation", () => {
    const key = keyFromHex("03c8162ea04fed738bfd5470527fd1ae7454c2e9ad1acbadec9f9e35bab2f33c66");
    expect(encode("newaccount", { creator: "eosio", name: "eosio.sudo", owner: auth(key), active: auth(key) })).toBe(
      "0000000000ea305500004d1a03ea305501000000010003c8162ea04fed738bfd5470527fd1ae7454c2e9ad1acbadec9f9e35bab2f33c660100000001000000010003c8162ea04fed738bfd5470527fd1ae7454c2e9ad1acbadec9f9e35bab2f33c6601000000",
    );
  });

  it("newaccount encodes a cosigner permission after the keys", () => {
    const key = keyFromHex("03c8162ea04fed738bfd5470527fd1ae7454c2e9ad1acbadec9f9e35bab2f33c66");
    const owner = { ...auth(key), accounts: [{ permission: { actor: "eosio", permission: "active" }, weight: 1 }] };
    const hex = encode("newaccount", { creator: "eosio", name: "eosio.sudo", owner, active: auth(key) });
    // threshold, 1 key (type + 33 bytes + weight), 1 account (actor, permission, weight), 0 waits
    expect(hex).toContain(
      "01000000010003c8162ea04fed738bfd5470527fd1ae7454c2e9ad1acbadec9f9e35bab2f33c660100010000000000ea305500000000a8ed3232010000",
    );
  });

  it("delegatebw matches nodeos' serialisation", () => {
    expect(
      encode("delegatebw", {
        from: "eosio",
        receiver: "eosio.sudo",
        stake_net_quantity: "1.0000 SYS",
        stake_cpu_quantity: "1.0000 SYS",
        transfer: true,
      }),
    ).toBe("0000000000ea305500004d1a03ea3055102700000000000004535953000000001027000000000000045359530000000001");
  });

  it("updateauth matches cleos' serialisation", () => {
    expect(
      encode("updateauth", {
        account: "updatemyauth",
        permission: "active",
        parent: "owner",
        auth: auth("EOS6GR1JqeNmp5d7FGRt3Rx1BGQ1QxUk65nkfcnuprAs1BVNNWqSD"),
      }),
    ).toBe(
      "d0b2365eaa6c52d500000000a8ed32320000000080ab26a701000000010002b57ac63750eca19d2e7a36ba46057e4d8a6a981849f883b5c731c33b86fdc82a01000000",
    );
  });
});
