/**
 * A verified person binds their account with a WharfKit Session, against the sandbox: KYC with a
 * sandbox identity, a free account for the wallet's key, then the bind challenge signed by the
 * wallet as a transaction that is never broadcast.
 *   BI_URL=http://localhost:3000 BI_API_KEY=bi_test_… [BI_PERSON_DID=did:web:…] [BI_SIGNING_SECRET=bisig_…] npx tsx examples/typescript/bind-with-wharfkit.ts
 * BI_PERSON_DID names a person already verified (on the hosted page); without it the example verifies a new one.
 *
 * In a browser the Session comes from SessionKit's login with the user's wallet (Anchor, Wombat,
 * Cloud Wallet…); here the published private-key wallet plugin stands in for it.
 */
import { pathToFileURL } from "node:url";
import { PrivateKey, Serializer } from "@wharfkit/antelope";
import { Session } from "@wharfkit/session";
import { WalletPluginPrivateKey } from "@wharfkit/wallet-plugin-privatekey";
import { type BindIdentityClient, createBindIdentityClient, dataOf } from "./client";

export async function bindWithWharfKit(api: BindIdentityClient, input: { baseUrl: string; wallet: PrivateKey; personDid?: string }) {
  // 1. A verified person: the one given (verified on the hosted page), or a new one whose sandbox
  // verification is completed by a call instead of the page.
  let personDid = input.personDid;
  if (!personDid) {
    const started = dataOf(await api.POST("/v1/kyc/start", { body: {} }));
    dataOf(await api.POST("/v1/sandbox/kyc/complete", { body: { personDid: started.personDid, outcome: "approved" } }));
    personDid = started.personDid;
  }
  const status = dataOf(await api.GET("/v1/kyc/status", { params: { query: { personDid } } }));
  if (!status.createToken) throw new Error(`KYC is ${status.status}, not approved`);

  // 2. A free account owned by the wallet's key, created with the person's create token.
  const created = dataOf(
    await api.POST("/v1/accounts/free", {
      body: { ownerPublicKey: input.wallet.toPublic().toString(), kycCreateToken: status.createToken, personDid },
    }),
  );

  // 3. The challenge, and the wallet's Session on the same chain (the sandbox chain's node API).
  const challenge = dataOf(await api.POST("/v1/bind/challenge", { body: { accountDid: created.accountDid, personDid } }));
  if (!challenge.transaction) throw new Error("the challenge offers no transaction to sign");
  const session = new Session({
    chain: { id: challenge.transaction.chainId, url: `${input.baseUrl}/v1/sandbox/chain` },
    permissionLevel: `${created.name}@active`,
    walletPlugin: new WalletPluginPrivateKey(input.wallet),
  });

  // 4. The wallet signs the challenge's action and does not broadcast it: the action can never execute.
  const signed = await session.transact({ action: challenge.transaction.action }, { broadcast: false });
  if (!signed.resolved) throw new Error("the wallet returned no transaction");

  // 5. Confirm with the signed transaction: the answer carries the AccountBinding credential.
  return dataOf(
    await api.POST("/v1/bind/confirm", {
      body: {
        accountDid: created.accountDid,
        personDid,
        nonce: challenge.nonce,
        signedTransaction: {
          transaction: Serializer.encode({ object: signed.resolved.transaction }).hexString,
          signatures: signed.signatures.map(String),
        },
      },
    }),
  );
}

// Run as a script: a throwaway wallet key stands in for your user's wallet.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const baseUrl = process.env.BI_URL ?? "http://localhost:3000";
  const api = createBindIdentityClient({ baseUrl, apiKey: process.env.BI_API_KEY ?? "", signingSecret: process.env.BI_SIGNING_SECRET });
  const bound = await bindWithWharfKit(api, {
    baseUrl,
    wallet: PrivateKey.generate("K1"),
    personDid: process.env.BI_PERSON_DID || undefined,
  });
  console.log(JSON.stringify(bound, null, 2));
}
