// The attestation contract's committed WASM in VeRT: what it publishes, who may write it, the
// status changes, require, the expiry sweep and erasure. A fresh chain per test (a few ms).
import type { Blockchain } from "@proton/vert";
import { describe, expect, it } from "vitest";
import { addPermission, addSeconds, chainAt, deploy, failure, nowSec } from "../vert";

const START = "2026-03-01T00:00:00Z";
const DAY = 86_400;
const ISSUER = "issuer@attest";

/** The chain time `seconds` from now, as an ABI time_point_sec. */
const inSeconds = (bc: Blockchain, seconds: number) => new Date((nowSec(bc) + seconds) * 1000).toISOString().slice(0, 19);

function setup() {
  const bc = chainAt(START);
  const contract = deploy(bc, "attestation", "attestation");
  bc.createAccounts("issuer", "alice", "bob", "carol", "dave", "erin", "mallory");
  addPermission(bc.accounts.issuer!, "attest");
  const act = (action: string, data: unknown[], auth: string | never[] = ISSUER) => contract.actions[action]!(data).send(auth);
  const issue = (
    account: string,
    o: { org?: number; level?: number; tier?: number; country?: string; days?: number; person?: string } = {},
  ) =>
    act("issue", [
      account,
      o.org ?? 7,
      o.level ?? 2,
      o.tier ?? 1,
      o.country ?? "",
      inSeconds(bc, (o.days ?? 365) * DAY),
      o.person ?? "",
      12,
    ]);
  const row = (account: string) =>
    contract.tables.attests!()
      .getTableRows()
      .find((r: { account: string }) => r.account === account);
  const require = (account: string, minLevel: number) => act("require", [account, minLevel], "mallory@active");
  const setIssuer = () => act("setissuer", ["issuer", "attest"], "attestation@active");
  return { bc, contract, act, issue, row, require, setIssuer };
}

async function ready() {
  const s = setup();
  await s.setIssuer();
  return s;
}

describe("issue", () => {
  it("publishes exactly the issued fields, with the block time as issued and updated", async () => {
    const { contract, act } = await ready();
    await act("issue", ["alice", 7, 2, 3, "DE", "2027-03-01T00:00:00", "pw_0123456789abcdef0123456789abcdef01234567", 4711]);
    expect(contract.tables.attests!().getTableRows()).toEqual([
      {
        account: "alice",
        org: 7,
        level: 2,
        country_tier: 3,
        country: "DE",
        issued: "2026-03-01T00:00:00",
        expires: "2027-03-01T00:00:00",
        status: 0,
        person: "pw_0123456789abcdef0123456789abcdef01234567",
        status_index: 4711,
        updated: "2026-03-01T00:00:00",
      },
    ]);
    // The ABI's row type has these fields and no other: nothing else can be published.
    const struct = (contract.abi!.structs as unknown as { name: string; fields: { name: string; type: string }[] }[]).find(
      (s) => s.name === "Attest",
    )!;
    expect(struct.fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      "account:name",
      "org:uint64",
      "level:uint8",
      "country_tier:uint8",
      "country:string",
      "issued:time_point_sec",
      "expires:time_point_sec",
      "status:uint8",
      "person:string",
      "status_index:uint64",
      "updated:time_point_sec",
    ]);
  });

  it("replaces the row on a second issue, and issues again after a revoke (a new binding is a new decision)", async () => {
    const { bc, act, issue, row } = await ready();
    await issue("alice", { level: 1, country: "FR" });
    await act("revoke", ["alice", 2]);
    expect(row("alice")).toMatchObject({ status: 2 });
    addSeconds(bc, DAY);
    await issue("alice", { level: 2, person: "pw_new" });
    expect(row("alice")).toMatchObject({ status: 0, level: 2, country: "", person: "pw_new", issued: "2026-03-02T00:00:00" });
  });

  it("refuses what it must not publish or cannot mean, with a reason", async () => {
    const { bc, issue } = await ready();
    expect(await failure(issue("alice", { country: "de" }))).toBe(
      "eosio_assert: country must be empty or two capital letters (ISO 3166-1 alpha-2)",
    );
    expect(await failure(issue("alice", { country: "Germany" }))).toBe(
      "eosio_assert: country must be empty or two capital letters (ISO 3166-1 alpha-2)",
    );
    expect(await failure(issue("alice", { person: "p".repeat(65) }))).toBe("eosio_assert: person is longer than 64 characters");
    expect(await failure(issue("alice", { level: 0 }))).toBe("eosio_assert: level must be 1 or more");
    expect(await failure(issue("alice", { org: 0 }))).toBe("eosio_assert: org must not be 0 (consumers read 0 as any organization)");
    expect(await failure(issue("alice", { days: 0 }))).toBe("eosio_assert: expires must be in the future");
    expect(await failure(issue("nosuchacct"))).toBe("eosio_assert: account does not exist");
    expect(await failure(issue("alice", { person: "p".repeat(64), country: "NZ" }))).toBe("");
    expect(nowSec(bc)).toBe(Date.parse(START) / 1000);
  });
});

describe("the issuer", () => {
  it("is set by the contract account alone; nothing is written before it is", async () => {
    const s = setup();
    expect(await failure(s.issue("alice"))).toBe("eosio_assert: no issuer yet: the contract account calls setissuer first");
    await s.setIssuer();
    expect(await failure(s.act("setissuer", ["mallory", "active"], "mallory@active"))).toBe("missing required authority attestation");
    expect(await failure(s.act("setissuer", ["mallory", "active"], "issuer@attest"))).toBe("missing required authority attestation");
    expect(await failure(s.act("setissuer", ["nosuchacct", "active"], "attestation@active"))).toBe(
      "eosio_assert: issuer account does not exist",
    );
    expect(s.contract.tables.config!().getTableRows()).toEqual([{ issuer: "issuer", permission: "attest", sweep_from: 0 }]);
  });

  it("alone writes, and only with the named permission: others get the chain's missing-authority error", async () => {
    const { act, issue, row } = await ready();
    await issue("alice");
    const writes: [string, unknown[]][] = [
      ["issue", ["bob", 7, 2, 1, "", "2027-01-01T00:00:00", "", 1]],
      ["suspend", ["alice", 0]],
      ["reinstate", ["alice"]],
      ["revoke", ["alice", 0]],
      ["expire", [10]],
      ["remove", ["alice"]],
    ];
    for (const [action, data] of writes) {
      for (const auth of ["mallory@active", "alice@active", "attestation@active", "issuer@active"]) {
        expect(await failure(act(action, data, auth)), `${action} by ${auth}`).toBe("missing required authority issuer@attest");
      }
    }
    expect(row("alice")).toMatchObject({ status: 0 });
    expect(row("bob")).toBeUndefined();
  });
});

describe("status", () => {
  it("suspend, reinstate and revoke change status and updated; repeating one changes nothing", async () => {
    const { bc, act, issue, row } = await ready();
    await issue("alice");
    addSeconds(bc, 60);
    await act("suspend", ["alice", 2]);
    expect(row("alice")).toMatchObject({ status: 1, issued: "2026-03-01T00:00:00", updated: "2026-03-01T00:01:00" });
    addSeconds(bc, 60);
    await act("suspend", ["alice", 2]);
    expect(row("alice")).toMatchObject({ status: 1, updated: "2026-03-01T00:01:00" });
    await act("reinstate", ["alice"]);
    expect(row("alice")).toMatchObject({ status: 0, updated: "2026-03-01T00:02:00" });
    addSeconds(bc, 60);
    await act("reinstate", ["alice"]);
    expect(row("alice")).toMatchObject({ status: 0, updated: "2026-03-01T00:02:00" });
    await act("revoke", ["alice", 1]);
    expect(row("alice")).toMatchObject({ status: 2, updated: "2026-03-01T00:03:00" });
    addSeconds(bc, 60);
    await act("revoke", ["alice", 1]);
    expect(row("alice")).toMatchObject({ status: 2, updated: "2026-03-01T00:03:00" });
  });

  it("a revoked attestation cannot be suspended or reinstated, and unknown accounts are named", async () => {
    const { act, issue, row } = await ready();
    await issue("alice");
    await act("revoke", ["alice", 0]);
    expect(await failure(act("suspend", ["alice", 0]))).toBe("eosio_assert: attestation of alice is revoked: issue a new one");
    expect(await failure(act("reinstate", ["alice"]))).toBe("eosio_assert: attestation of alice is revoked: issue a new one");
    expect(row("alice")).toMatchObject({ status: 2 });
    for (const [action, data] of [
      ["suspend", ["bob", 0]],
      ["reinstate", ["bob"]],
      ["revoke", ["bob", 0]],
    ] as const) {
      expect(await failure(act(action, [...data])), action).toBe("eosio_assert: bob has no attestation");
    }
  });
});

describe("require(account, min_level)", () => {
  it("passes for an active, unexpired attestation of at least min_level, and fails otherwise, naming why", async () => {
    const { bc, act, issue, require } = await ready();
    await issue("alice", { level: 2, days: 10 });
    await issue("bob", { level: 1 });
    await issue("carol");
    await act("suspend", ["carol", 0]);
    await issue("dave");
    await act("revoke", ["dave", 0]);

    expect(await failure(require("alice", 2))).toBe("");
    expect(await failure(require("alice", 1))).toBe("");
    expect(await failure(require("alice", 0))).toBe("");
    expect(await failure(require("alice", 3))).toBe("eosio_assert: attestation of alice is level 2, below 3");
    expect(await failure(require("bob", 2))).toBe("eosio_assert: attestation of bob is level 1, below 2");
    expect(await failure(require("carol", 1))).toBe("eosio_assert: attestation of carol is suspended");
    expect(await failure(require("dave", 1))).toBe("eosio_assert: attestation of dave is revoked");
    expect(await failure(require("erin", 1))).toBe("eosio_assert: erin has no attestation");

    // Expiry is read at the block's time: no action needs to run for it.
    addSeconds(bc, 10 * DAY - 1);
    expect(await failure(require("alice", 2))).toBe("");
    addSeconds(bc, 1);
    expect(await failure(require("alice", 2))).toBe("eosio_assert: attestation of alice has expired");
    expect(await failure(require("bob", 1))).toBe("");
  });

  it("needs no authorization and changes nothing", async () => {
    const { contract, issue, act } = await ready();
    await issue("alice");
    const before = contract.tables.attests!().getTableRows();
    await act("require", ["alice", 1], []);
    expect(contract.tables.attests!().getTableRows()).toEqual(before);
  });
});

describe("expire(max_rows)", () => {
  it("looks at no more than max_rows rows per call, removes those past their expiry, and carries on where it stopped", async () => {
    const { bc, contract, act, issue } = await ready();
    // Account order: alice, bob, carol, dave, erin. bob, carol and erin expire after one day.
    for (const [account, days] of [
      ["alice", 30],
      ["bob", 1],
      ["carol", 1],
      ["dave", 30],
      ["erin", 1],
    ] as const) {
      await issue(account, { days });
    }
    await act("suspend", ["carol", 0]);
    await act("revoke", ["erin", 0]);
    const accounts = () =>
      contract.tables.attests!()
        .getTableRows()
        .map((r: { account: string }) => r.account);
    const sweepFrom = () => contract.tables.config!().getTableRows()[0].sweep_from;

    await act("expire", [5]);
    expect(bc.console).toBe("expire: looked at 5, removed 0");
    expect(accounts()).toEqual(["alice", "bob", "carol", "dave", "erin"]);
    addSeconds(bc, DAY);

    await act("expire", [2]);
    expect(bc.console).toBe("expire: looked at 2, removed 1");
    expect(accounts()).toEqual(["alice", "carol", "dave", "erin"]);
    expect(String(sweepFrom())).not.toBe("0");

    await act("expire", [2]);
    expect(bc.console).toBe("expire: looked at 2, removed 1");
    expect(accounts()).toEqual(["alice", "dave", "erin"]);

    await act("expire", [2]);
    expect(bc.console).toBe("expire: looked at 1, removed 1");
    expect(accounts()).toEqual(["alice", "dave"]);
    expect(sweepFrom()).toBe(0);

    await act("expire", [100]);
    expect(bc.console).toBe("expire: looked at 2, removed 0");
    expect(await failure(act("expire", [0]))).toBe("eosio_assert: max_rows must be 1 or more");
  });
});

describe("remove(account)", () => {
  it("deletes the row (erasure); removing it again changes nothing", async () => {
    const { contract, act, issue, require } = await ready();
    await issue("alice", { person: "pw_x", country: "DE" });
    await issue("bob");
    await act("remove", ["alice"]);
    expect(
      contract.tables.attests!()
        .getTableRows()
        .map((r: { account: string }) => r.account),
    ).toEqual(["bob"]);
    expect(await failure(require("alice", 1))).toBe("eosio_assert: alice has no attestation");
    expect(await failure(act("remove", ["alice"]))).toBe("");
  });
});
