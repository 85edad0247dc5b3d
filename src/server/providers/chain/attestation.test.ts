// The attestation publisher over real HTTP against the vert node (src/server/testing/vert-node.ts),
// which runs the committed WASM of contracts/attestation: what the service publishes, read back,
// and every way the chain refuses it, as the publisher reports them.
import fs from "node:fs";
import { PackedTransaction, PrivateKey } from "@wharfkit/antelope";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { targetOf } from "../../../../contracts/vert";
import { type AppError, isAppError } from "../../errors";
import { startVertNode, type VertNode } from "../../testing/vert-node";
import { type AttestationConfig, type AttestationIssue, attestationConfigFromEnv, createAttestationPublisher } from "./attestation";
import { ATTESTATION_ABI_DEF } from "./attestation-abi";

const START = "2026-03-01T00:00:00Z";
const DAY = 86_400;
const attestKey = PrivateKey.generate("K1");
const activeKey = PrivateKey.generate("K1");
let node: VertNode;
let config: AttestationConfig;

const envFor = (url: string, extra: Record<string, string> = {}) => ({
  ATTESTATION_CONTRACT: "attestation",
  ATTESTATION_ISSUER: "bindissuer",
  ATTESTATION_PRIVATE_KEY: attestKey.toString(),
  CHAIN_API_URL: url,
  ...extra,
});
const caught = async (p: Promise<unknown>): Promise<AppError> =>
  p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => {
      if (!isAppError(e)) throw e;
      return e;
    },
  );
const issueOf = (account: string, o: Partial<AttestationIssue> = {}): AttestationIssue => ({
  account,
  org: 7,
  level: 2,
  countryTier: 1,
  country: "",
  expires: new Date("2027-03-01T00:00:00Z"),
  person: "",
  statusIndex: 1,
  ...o,
});
/** The row as the contract stored it, read from the emulator's table, not through the node. */
const stored = (account: string) =>
  node.bc.accounts.attestation!.tables.attests!()
    .getTableRows()
    .find((r: { account: string }) => r.account === account);

beforeAll(async () => {
  node = await startVertNode({ at: START });
  node.createAccount("bindissuer", { active: activeKey.toPublic(), attest: attestKey.toPublic() });
  node.bc.createAccounts("alice", "bob", "carol", "dave", "erin");
  await node.deployAttestation({ issuer: "bindissuer", permission: "attest" });
  config = attestationConfigFromEnv(envFor(node.url))!;
});
afterAll(() => node.close());

describe("writes", () => {
  it("issues a row that reads back field by field; the id returned is the id of the transaction the node applied", async () => {
    const publisher = createAttestationPublisher(config);
    const person = "pw_0123456789abcdef0123456789abcdef01234567";
    const { transactionId } = await publisher.issue(
      issueOf("alice", { org: 5_000_000_123, level: 2, countryTier: 3, country: "DE", person, statusIndex: 4711 }),
    );

    // The node's own reading of the bytes we sent: id, signer, action and its ABI-decoded data.
    const applied = node.received.at(-1)!;
    expect(applied).toMatchObject({ path: "/v1/chain/send_transaction", accepted: true, id: transactionId });
    expect(applied.signedBy).toEqual([attestKey.toPublic().toString()]);
    expect(applied.actions).toEqual([
      {
        account: "attestation",
        name: "issue",
        authorization: ["bindissuer@attest"],
        data: {
          account: "alice",
          org: "5000000123",
          level: 2,
          country_tier: 3,
          country: "DE",
          expires: "2027-03-01T00:00:00",
          person,
          status_index: 4711,
        },
      },
    ]);
    const sent = node.requests.findLast((r) => r.path === "/v1/chain/send_transaction")!.body as { packed_trx: string };
    expect(PackedTransaction.from({ packed_trx: sent.packed_trx }).getTransaction().id.hexString).toBe(transactionId);

    // A uint64 above 2^32 is a string in the chain's JSON (nodeos and VeRT alike); readRow gives our number back.
    expect(stored("alice")).toEqual({
      account: "alice",
      org: "5000000123",
      level: 2,
      country_tier: 3,
      country: "DE",
      issued: "2026-03-01T00:00:00",
      expires: "2027-03-01T00:00:00",
      status: 0,
      person,
      status_index: 4711,
      updated: "2026-03-01T00:00:00",
    });
    expect(await publisher.readRow("alice")).toEqual({
      account: "alice",
      org: 5_000_000_123,
      level: 2,
      countryTier: 3,
      country: "DE",
      issued: new Date(START),
      expires: new Date("2027-03-01T00:00:00Z"),
      status: "active",
      person,
      statusIndex: 4711,
      updated: new Date(START),
    });
    expect(await publisher.readRow("bob")).toBeNull();
    expect(await publisher.readRow("Not A Name")).toBeNull();
  });

  it("suspend, reinstate, revoke and remove change the row; a second issue after a revoke makes it active again", async () => {
    const publisher = createAttestationPublisher(config);
    await publisher.issue(issueOf("bob", { level: 1 }));
    const issued = new Date(node.nowSec() * 1000);

    node.advance(DAY);
    await publisher.suspend("bob", 1);
    expect(await publisher.readRow("bob")).toMatchObject({ status: "suspended", issued, updated: new Date(issued.getTime() + DAY * 1000) });
    expect(node.received.at(-1)!.actions[0]).toMatchObject({ name: "suspend", data: { account: "bob", reason_code: 1 } });

    node.advance(DAY);
    await publisher.reinstate("bob");
    expect(await publisher.readRow("bob")).toMatchObject({ status: "active", updated: new Date(issued.getTime() + 2 * DAY * 1000) });

    await publisher.revoke("bob", 2);
    expect(await publisher.readRow("bob")).toMatchObject({ status: "revoked", level: 1 });
    expect(node.received.at(-1)!.actions[0]).toMatchObject({ name: "revoke", data: { account: "bob", reason_code: 2 } });

    await publisher.issue(issueOf("bob", { level: 2 }));
    expect(await publisher.readRow("bob")).toMatchObject({ status: "active", level: 2 });

    await publisher.remove("bob");
    expect(await publisher.readRow("bob")).toBeNull();
    expect(stored("bob")).toBeUndefined();
    // Removing a missing row changes nothing, and is not an error (the outbox may send it twice).
    await publisher.remove("bob");
    expect(node.received.at(-1)).toMatchObject({ accepted: true });
  });

  it("sweeps expired rows with expire", async () => {
    const publisher = createAttestationPublisher(config);
    await publisher.issue(issueOf("carol", { expires: new Date((node.nowSec() + 60) * 1000) }));
    await publisher.expire(100);
    expect(await publisher.readRow("carol")).not.toBeNull();
    node.advance(60);
    await publisher.expire(100);
    expect(await publisher.readRow("carol")).toBeNull();
    expect(node.received.at(-1)!.actions).toEqual([
      { account: "attestation", name: "expire", authorization: ["bindissuer@attest"], data: { max_rows: 100 } },
    ]);
  });

  it("refuses what does not fit the ABI's types before sending anything", async () => {
    const publisher = createAttestationPublisher(config);
    const before = node.requests.length;
    const err = await caught(publisher.issue(issueOf("dave", { level: 256, statusIndex: -1 })));
    expect(err.code).toBe("VALIDATION_ERROR");
    expect((err.details as { issues: { path: string }[] }).issues.map((i) => i.path).sort()).toEqual(["level", "statusIndex"]);
    expect((await caught(publisher.suspend("Dave!", 1))).code).toBe("VALIDATION_ERROR");
    expect((await caught(publisher.revoke("dave", 300 as never))).code).toBe("VALIDATION_ERROR");
    expect(node.requests.length).toBe(before);
  });
});

describe("reads", () => {
  it("pages through the table in account order", async () => {
    const publisher = createAttestationPublisher(config);
    for (const account of ["erin", "dave", "carol"]) await publisher.issue(issueOf(account));
    const first = await publisher.readRows({ limit: 2 });
    expect(first.rows.map((r) => r.account)).toEqual(["alice", "carol"]);
    expect(first.nextLowerBound).toBe("dave");
    const second = await publisher.readRows({ lowerBound: first.nextLowerBound!, limit: 2 });
    expect(second.rows.map((r) => r.account)).toEqual(["dave", "erin"]);
    expect(second.nextLowerBound).toBeNull();
    expect((await publisher.readRows({ lowerBound: "d", limit: 10 })).rows.map((r) => r.account)).toEqual(["dave", "erin"]);
    // The bound goes out as the name's number, which nodeos cannot mistake for a name.
    expect(node.requests.at(-1)!.body).toMatchObject({ code: "attestation", scope: "attestation", table: "attests", json: true });
    expect((node.requests.at(-1)!.body as { lower_bound: string }).lower_bound).toMatch(/^\d+$/);
  });
});

describe("refusals", () => {
  it("a key that is not on issuer@attest: our error carries the node's unsatisfied_authorization, without the key", async () => {
    const wrongKey = PrivateKey.generate("K1");
    const wrong = createAttestationPublisher(attestationConfigFromEnv(envFor(node.url, { ATTESTATION_PRIVATE_KEY: wrongKey.toString() }))!);
    const err = await caught(wrong.issue(issueOf("alice", { level: 1 })));
    expect(err.code).toBe("PROVIDER_FAILURE");
    expect(err.details).toMatchObject({ chainError: "unsatisfied_authorization", chainErrorCode: 3090003 });
    expect(err.message).toContain("The chain rejected the attestation issue (unsatisfied_authorization)");
    expect(err.message).toContain(
      `transaction declares authority '{"actor":"bindissuer","permission":"attest"}', but does not have signatures for it`,
    );
    // nodeos lists the keys it was given; none reaches our error.
    expect(err.message).toContain('provided keys ["[key]"]');
    expect(JSON.stringify([err.message, err.details])).not.toMatch(/PUB_|PVT_|SIG_|EOS[1-9A-HJ-NP-Za-km-z]{50}/);
    expect(node.received.at(-1)).toMatchObject({ accepted: false, error: "unsatisfied_authorization" });
    expect(stored("alice")).toMatchObject({ level: 2 });
  });

  it("a publisher configured with issuer@active: the node accepts the signature, the contract refuses the authority", async () => {
    const active = createAttestationPublisher(
      attestationConfigFromEnv(envFor(node.url, { ATTESTATION_PERMISSION: "active", ATTESTATION_PRIVATE_KEY: activeKey.toString() }))!,
    );
    const err = await caught(active.suspend("alice", 0));
    expect(err.code).toBe("PROVIDER_FAILURE");
    expect(err.details).toEqual({
      chainError: "missing_auth_exception",
      chainErrorCode: 3090004,
      chainMessage: "Missing required authority missing authority of bindissuer/attest",
    });
    expect(node.received.at(-1)).toMatchObject({
      accepted: false,
      error: "missing_auth_exception",
      signedBy: [activeKey.toPublic().toString()],
    });
    expect(stored("alice")).toMatchObject({ status: 0 });
  });

  it("a contract assertion comes back with the contract's message", async () => {
    const publisher = createAttestationPublisher(config);
    const level0 = await caught(publisher.issue(issueOf("alice", { level: 0 })));
    expect(level0.code).toBe("PROVIDER_FAILURE");
    expect(level0.details).toMatchObject({ chainError: "eosio_assert_message_exception", chainErrorCode: 3050003 });
    expect(level0.message).toBe(
      "The chain rejected the attestation issue (eosio_assert_message_exception): eosio_assert_message assertion failure assertion failure with message: level must be 1 or more",
    );
    expect(stored("alice")).toMatchObject({ level: 2 });

    const unknown = await caught(publisher.suspend("nosuchacct", 1));
    expect(unknown.details).toMatchObject({
      chainError: "eosio_assert_message_exception",
      chainMessage: "eosio_assert_message assertion failure assertion failure with message: nosuchacct has no attestation",
    });
    const past = await caught(publisher.issue(issueOf("alice", { expires: new Date(START) })));
    expect(past.message).toContain("assertion failure with message: expires must be in the future");
  });
});

describe("configuration", () => {
  it("is the committed ABI, field for field", () => {
    expect(ATTESTATION_ABI_DEF).toStrictEqual(JSON.parse(fs.readFileSync(targetOf("attestation").abi, "utf8")));
  });

  it("reads the environment: off without ATTESTATION_CONTRACT, attest by default, bad values named and never echoed", () => {
    expect(attestationConfigFromEnv({ CHAIN_API_URL: "http://node.example" })).toBeNull();
    expect(attestationConfigFromEnv({ ATTESTATION_CONTRACT: "", CHAIN_API_URL: "http://node.example" })).toBeNull();
    const parsed = attestationConfigFromEnv(envFor("http://node.example/", { CHAIN_HTTP_TIMEOUT_MS: "2500" }))!;
    expect({ ...parsed, privateKey: parsed.privateKey.toString() }).toEqual({
      apiUrl: "http://node.example",
      contract: "attestation",
      issuer: "bindissuer",
      permission: "attest",
      privateKey: attestKey.toString(),
      timeoutMs: 2500,
    });
    const secret = `${attestKey.toString().slice(0, -4)}xxxx`;
    let message = "";
    try {
      attestationConfigFromEnv(envFor("not a url", { ATTESTATION_PRIVATE_KEY: secret, ATTESTATION_ISSUER: "Bad Issuer" }));
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.split("\n").sort()).toEqual(
      [
        "Invalid attestation environment:",
        "  ATTESTATION_ISSUER: must be an account name",
        "  ATTESTATION_PRIVATE_KEY: must be a PVT_K1_/PVT_R1_ or WIF private key",
        "  CHAIN_API_URL: Invalid URL",
      ].sort(),
    );
    expect(message).not.toContain(secret.slice(8, 30));
    // A node of its own for the contract (a sandbox whose accounts stay simulated), else the chain's.
    expect(attestationConfigFromEnv({ ...envFor("http://node.example"), ATTESTATION_API_URL: "http://attest.example/" })!.apiUrl).toBe(
      "http://attest.example",
    );
    const { CHAIN_API_URL: _, ...noNode } = envFor("http://node.example");
    expect(() => attestationConfigFromEnv(noNode)).toThrow("ATTESTATION_API_URL: is required without CHAIN_API_URL");
  });
});
