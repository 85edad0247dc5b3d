import { expect } from "vitest";
import { walletKey, walletSign } from "./factories";
import { call, type client } from "./harness";

type Api = ReturnType<typeof client>;

/** The sandbox applicant id at the end of a hosted verification URL. */
export const applicantOf = (verificationUrl: string) => new URL(verificationUrl).pathname.split("/").pop()!;

/** Person-first KYC completed on the sandbox's hosted route, then the status with its create token. */
export async function approvedPerson(url: string, api: Api, outcome: "approved" | "pep" = "approved") {
  const started = await api.post("/v1/kyc/start", {});
  expect(started.status, started.text).toBe(200);
  const hosted = await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantOf(started.body.verificationUrl)}`, { body: { outcome } });
  expect(hosted.status, hosted.text).toBe(200);
  const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`);
  expect(status.body.status).toBe("approved");
  return { personDid: started.body.personDid as string, createToken: status.body.createToken as string, started: started.body };
}

/**
 * The whole tenant path for one person: KYC approved, a free account created with the create
 * token, and the account bound by the wallet's signature. Returns what later steps need.
 */
export async function boundAccount(url: string, api: Api) {
  const { personDid, createToken } = await approvedPerson(url, api);
  const wallet = walletKey();
  const created = await api.post("/v1/accounts/free", { ownerPublicKey: wallet.publicKey, kycCreateToken: createToken, personDid });
  expect(created.status, created.text).toBe(201);
  const accountDid = created.body.accountDid as string;
  const credential = await bindWithWallet(api, { accountDid, personDid, privateKey: wallet.privateKey });
  return { personDid, accountDid, accountName: created.body.name as string, wallet, credential };
}

/** The bind challenge for the account and person, signed by the account's wallet and confirmed; the credential it issues. */
export async function bindWithWallet(
  api: Api,
  input: { accountDid: string; personDid: string; privateKey: Parameters<typeof walletSign>[0] },
) {
  const { accountDid, personDid } = input;
  const challenge = await api.post("/v1/bind/challenge", { accountDid, personDid });
  expect(challenge.status, challenge.text).toBe(200);
  const confirmed = await api.post("/v1/bind/confirm", {
    accountDid,
    personDid,
    nonce: challenge.body.nonce,
    signature: walletSign(input.privateKey, challenge.body.payloadToSign),
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.body.credential;
}

/** An approved person and a free account created with their create token, not yet bound. */
export async function accountReadyToBind(url: string, api: Api) {
  const { personDid, createToken } = await approvedPerson(url, api);
  const wallet = walletKey();
  const created = await api.post("/v1/accounts/free", { ownerPublicKey: wallet.publicKey, kycCreateToken: createToken, personDid });
  expect(created.status, created.text).toBe(201);
  return { personDid, wallet, accountDid: created.body.accountDid as string };
}
