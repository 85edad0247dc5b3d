// The consumer example (docs/api/guides/onchain.md): the airdrop's committed WASM reads the
// attestation contract's committed WASM's table in VeRT, and refuses anyone it does not vouch for.
import { describe, expect, it } from "vitest";
import { addPermission, addSeconds, chainAt, deploy, failure, nowSec } from "../vert";

const DAY = 86_400;

async function setup(config: { org?: number; minLevel?: number } = {}) {
  const bc = chainAt("2026-03-01T00:00:00Z");
  const attestation = deploy(bc, "attestation", "attestation");
  const airdrop = deploy(bc, "airdrop", "airdrop");
  bc.createAccounts("issuer", "alice", "bob", "carol", "dave", "erin", "frank");
  addPermission(bc.accounts.issuer!, "attest");
  await attestation.actions.setissuer!(["issuer", "attest"]).send("attestation@active");
  await airdrop.actions.init!(["attestation", config.org ?? 0, config.minLevel ?? 1]).send("airdrop@active");

  const attest = (action: string, data: unknown[]) => attestation.actions[action]!(data).send("issuer@attest");
  const expires = (days: number) => new Date((nowSec(bc) + days * DAY) * 1000).toISOString().slice(0, 19);
  const issue = (account: string, o: { org?: number; level?: number; days?: number } = {}) =>
    attest("issue", [account, o.org ?? 7, o.level ?? 2, 1, "", expires(o.days ?? 365), "", 1]);
  const claim = (account: string, auth = `${account}@active`) => failure(airdrop.actions.claim!([account]).send(auth));
  const claimInline = (account: string) => failure(airdrop.actions.claiminline!([account]).send(`${account}@active`));
  const claimed = () => airdrop.tables.claims!().getTableRows();
  const attestationActions = () => bc.executionTraces.filter((t) => t.contract.toString() === "attestation").length;
  return { bc, attestation, attest, issue, claim, claimInline, claimed, attestationActions };
}

describe("an airdrop that reads the attestation table", () => {
  it("accepts a verified account once, and refuses suspended, revoked and expired ones until the issuer says otherwise", async () => {
    const { bc, attestation, attest, issue, claim, claimed, attestationActions } = await setup();

    await issue("alice");
    expect(await claim("alice")).toBe("");
    expect(claimed()).toEqual([{ account: "alice", claimed: "2026-03-01T00:00:00" }]);
    expect(attestationActions()).toBe(0); // read, not called
    expect(await claim("alice")).toBe("eosio_assert: already claimed");

    await issue("bob");
    await attest("suspend", ["bob", 2]);
    expect(await claim("bob")).toBe("eosio_assert: verification suspended");
    await attest("reinstate", ["bob"]);
    expect(await claim("bob")).toBe("");

    await issue("carol");
    await attest("revoke", ["carol", 2]);
    expect(await claim("carol")).toBe("eosio_assert: verification revoked");

    await issue("dave", { days: 30 });
    addSeconds(bc, 30 * DAY);
    // Expiry needs no action: the block time alone passes it, and the row still reads active.
    expect(await claim("dave")).toBe("eosio_assert: verification expired");
    expect(attestationActions()).toBe(0);
    expect(attestation.tables.attests!().getTableRows()).toContainEqual(expect.objectContaining({ account: "dave", status: 0 }));

    expect(await claim("erin")).toBe("eosio_assert: not verified");
    expect(claimed().map((c: { account: string }) => c.account)).toEqual(["alice", "bob"]);
  });

  it("takes the claimant's own authority", async () => {
    const { issue, claim, claimed } = await setup();
    await issue("alice");
    expect(await claim("alice", "bob@active")).toBe("missing required authority alice");
    expect(claimed()).toEqual([]);
  });

  it("holds to its configured level and organization", async () => {
    const { issue, claim } = await setup({ org: 7, minLevel: 2 });
    await issue("alice", { level: 1 });
    await issue("bob", { org: 8 });
    await issue("carol", { org: 7, level: 2 });
    expect(await claim("alice")).toBe("eosio_assert: verification level too low");
    expect(await claim("bob")).toBe("eosio_assert: verified by another organization");
    expect(await claim("carol")).toBe("");
  });
});

describe("an airdrop that sends require inline", () => {
  it("claims when the attestation contract's require passes, and is reverted with its message when it fails", async () => {
    const { bc, attest, issue, claimInline, claimed } = await setup({ minLevel: 2 });
    await issue("alice");
    expect(await claimInline("alice")).toBe("");
    expect(bc.executionTraces.map((t) => `${t.contract}::${t.action} inline=${t.isInline} auth=${t.authorization.length}`)).toEqual([
      "airdrop::claiminline inline=false auth=1",
      "attestation::require inline=true auth=0",
    ]);

    await issue("bob", { level: 1 });
    expect(await claimInline("bob")).toBe("eosio_assert: attestation of bob is level 1, below 2");
    await issue("carol");
    await attest("suspend", ["carol", 0]);
    expect(await claimInline("carol")).toBe("eosio_assert: attestation of carol is suspended");
    expect(await claimInline("dave")).toBe("eosio_assert: dave has no attestation");
    // The failed require undid the claims it followed.
    expect(claimed().map((c: { account: string }) => c.account)).toEqual(["alice"]);
    expect(await claimInline("alice")).toBe("eosio_assert: already claimed");
  });
});
