import { ABI } from "@wharfkit/antelope";

type Field = { name: string; type: string };
const struct = (name: string, fields: Field[]) => ({ name, base: "", fields });
const f = (name: string, type: string): Field => ({ name, type });

/**
 * The part of the eosio system contract ABI the faucet uses. Field order is the wire format and
 * follows eosio.system (newaccount, buyrambytes, delegatebw, updateauth without the optional
 * `authorized_by` extension, which older system contracts such as WAX's and Telos' lack).
 */
export const SYSTEM_ABI = ABI.from({
  version: "eosio::abi/1.1",
  types: [],
  variants: [],
  structs: [
    struct("permission_level", [f("actor", "name"), f("permission", "name")]),
    struct("key_weight", [f("key", "public_key"), f("weight", "uint16")]),
    struct("permission_level_weight", [f("permission", "permission_level"), f("weight", "uint16")]),
    struct("wait_weight", [f("wait_sec", "uint32"), f("weight", "uint16")]),
    struct("authority", [
      f("threshold", "uint32"),
      f("keys", "key_weight[]"),
      f("accounts", "permission_level_weight[]"),
      f("waits", "wait_weight[]"),
    ]),
    struct("newaccount", [f("creator", "name"), f("name", "name"), f("owner", "authority"), f("active", "authority")]),
    struct("buyrambytes", [f("payer", "name"), f("receiver", "name"), f("bytes", "uint32")]),
    struct("delegatebw", [
      f("from", "name"),
      f("receiver", "name"),
      f("stake_net_quantity", "asset"),
      f("stake_cpu_quantity", "asset"),
      f("transfer", "bool"),
    ]),
    struct("updateauth", [f("account", "name"), f("permission", "name"), f("parent", "name"), f("auth", "authority")]),
  ],
  actions: ["newaccount", "buyrambytes", "delegatebw", "updateauth"].map((name) => ({ name, type: name, ricardian_contract: "" })),
  tables: [],
  ricardian_clauses: [],
  action_results: [],
});

/** eosio.token's transfer, to read a payment whose node returned only hex data. */
export const TOKEN_ABI = ABI.from({
  version: "eosio::abi/1.1",
  types: [],
  variants: [],
  structs: [struct("transfer", [f("from", "name"), f("to", "name"), f("quantity", "asset"), f("memo", "string")])],
  actions: [{ name: "transfer", type: "transfer", ricardian_contract: "" }],
  tables: [],
  ricardian_clauses: [],
  action_results: [],
});

/**
 * The bind challenge's proof action (docs/decisions.md, "Wallet proofs"): `bindproof` on the empty
 * name, whose data is the challenge's nonce and text. No account can have the empty name, so no
 * node executes it; the ABI lets wallets decode and show what they sign.
 */
export const PROOF_ABI = ABI.from({
  version: "eosio::abi/1.2",
  structs: [
    {
      name: "bindproof",
      base: "",
      fields: [
        { name: "nonce", type: "string" },
        { name: "text", type: "string" },
      ],
    },
  ],
  actions: [{ name: "bindproof", type: "bindproof", ricardian_contract: "" }],
});

export type AuthorityJson = {
  threshold: number;
  keys: { key: string; weight: number }[];
  accounts: { permission: { actor: string; permission: string }; weight: number }[];
  waits: { wait_sec: number; weight: number }[];
};

/** `account@permission` → its parts (permission defaults to active). */
export function parsePermissionLevel(value: string): { actor: string; permission: string } {
  const [actor = "", permission = "active"] = value.split("@");
  return { actor, permission };
}
