import { ABI } from "@wharfkit/antelope";

type Field = { name: string; type: string };
const struct = (name: string, fields: [string, string][]) => ({
  name,
  base: "",
  fields: fields.map(([n, type]): Field => ({ name: n, type })),
});
const action = (name: string) => ({ name, type: name, ricardian_contract: "" });
const table = (name: string, type: string) => ({ name, type, index_type: "i64", key_names: [], key_types: [] });

/**
 * The ABI `npm run contracts:build` writes to contracts/attestation/target/attestation.contract.abi,
 * as an object: the service cannot read that file at run time (Next bundles the server), and
 * attestation.test.ts checks this equals it, field for field, so the two cannot drift apart.
 */
export const ATTESTATION_ABI_DEF: ABI.Def & { abi_extensions: never[]; error_messages: never[] } = {
  version: "eosio::abi/1.2",
  structs: [
    struct("Attest", [
      ["account", "name"],
      ["org", "uint64"],
      ["level", "uint8"],
      ["country_tier", "uint8"],
      ["country", "string"],
      ["issued", "time_point_sec"],
      ["expires", "time_point_sec"],
      ["status", "uint8"],
      ["person", "string"],
      ["status_index", "uint64"],
      ["updated", "time_point_sec"],
    ]),
    struct("Config", [
      ["issuer", "name"],
      ["permission", "name"],
      ["sweep_from", "uint64"],
    ]),
    struct("expire", [["max_rows", "uint32"]]),
    struct("issue", [
      ["account", "name"],
      ["org", "uint64"],
      ["level", "uint8"],
      ["country_tier", "uint8"],
      ["country", "string"],
      ["expires", "time_point_sec"],
      ["person", "string"],
      ["status_index", "uint64"],
    ]),
    struct("reinstate", [["account", "name"]]),
    struct("remove", [["account", "name"]]),
    struct("require", [
      ["account", "name"],
      ["min_level", "uint8"],
    ]),
    struct("revoke", [
      ["account", "name"],
      ["reason_code", "uint8"],
    ]),
    struct("setissuer", [
      ["issuer", "name"],
      ["permission", "name"],
    ]),
    struct("suspend", [
      ["account", "name"],
      ["reason_code", "uint8"],
    ]),
  ],
  types: [],
  actions: ["expire", "issue", "reinstate", "remove", "require", "revoke", "setissuer", "suspend"].map(action),
  tables: [table("attests", "Attest"), table("config", "Config")],
  ricardian_clauses: [],
  variants: [],
  action_results: [],
  abi_extensions: [],
  error_messages: [],
};

export const ATTESTATION_ABI = ABI.from(ATTESTATION_ABI_DEF);
