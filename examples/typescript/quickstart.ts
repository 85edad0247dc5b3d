/**
 * From an API key to a first free chain account, with the typed client of client.ts:
 *   BI_URL=http://localhost:3000 BI_API_KEY=bi_test_… [BI_SIGNING_SECRET=bisig_…] npx tsx examples/typescript/quickstart.ts you@example.com
 */
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline/promises";
import { pathToFileURL } from "node:url";
import { PrivateKey } from "@wharfkit/antelope";
import { type BindIdentityClient, createBindIdentityClient, dataOf } from "./client";

export type QuickstartInput = {
  /** The user's email address: proven with a one-time code, then recorded on the account. */
  email: string;
  /** The public key of the user's wallet: it will own the account. */
  ownerPublicKey: string;
  /** Asks the user for the emailed code; not called when the service returns a sandbox devCode. */
  readCode?: (emailMasked: string) => Promise<string>;
};

export async function quickstart(api: BindIdentityClient, input: QuickstartInput) {
  // 1. The organization this key belongs to, and the gates it sets for free accounts.
  const tenant = dataOf(await api.GET("/v1/tenant"));

  // 2. A name for the account, checked first. The check reserves nothing: the create checks again.
  const name = randomAccountName();
  const check = dataOf(await api.GET("/v1/accounts/name-available", { params: { query: { name } } }));
  if (!check.available) throw new Error(check.message);

  // 3. Prove the user's email: a 6-digit code is sent to it. A sandbox on your own machine also
  //    returns the code as devCode; otherwise the user types it in.
  const started = dataOf(await api.POST("/v1/email/otp/start", { body: { email: input.email } }));
  const code = started.devCode ?? (await input.readCode?.(started.emailMasked));
  if (!code) throw new Error(`Enter the code sent to ${started.emailMasked}.`);
  const proof = dataOf(await api.POST("/v1/email/otp/confirm", { body: { challengeId: started.challengeId, code } }));

  // 4. Create the account. The Idempotency-Key makes a retry of this exact call safe (24 hours).
  const created = dataOf(
    await api.POST("/v1/accounts/free", {
      params: { header: { "Idempotency-Key": randomUUID() } },
      body: { ownerPublicKey: input.ownerPublicKey, preferredName: name, emailProofToken: proof.emailProofToken },
    }),
  );

  // 5. Read it back: lifecycle "provisional" until a verified person binds it with their wallet.
  const account = dataOf(await api.GET("/v1/accounts/{did}", { params: { path: { did: created.accountDid } } }));
  return { tenant, account, transactionId: created.transactionId };
}

/** 12 characters of a-z and 1-5, the shape of an Antelope account name. */
function randomAccountName(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz12345";
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => alphabet[b % alphabet.length]).join("");
}

// Run as a script: a throwaway wallet key stands in for your user's.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const api = createBindIdentityClient({
    baseUrl: process.env.BI_URL ?? "http://localhost:3000",
    apiKey: process.env.BI_API_KEY ?? "",
    signingSecret: process.env.BI_SIGNING_SECRET,
  });
  const wallet = PrivateKey.generate("K1");
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  const result = await quickstart(api, {
    email: process.argv[2] ?? "someone@example.com",
    ownerPublicKey: wallet.toPublic().toString(),
    readCode: (to) => terminal.question(`Code sent to ${to}: `),
  }).finally(() => terminal.close());
  console.log(JSON.stringify(result, null, 2));
}
