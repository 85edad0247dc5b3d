// npm run vc:verify -- credential.json [--did-document did.json]
// Verifies an AccountBinding credential (eddsa-jcs-2022) without the service: the issuer's DID
// document comes from the given file, or is resolved over did:web when none is given.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { didWebUrl } from "../src/server/crypto/did-web";
import { verifyCredentialWithDidDocument } from "../src/server/crypto/verify-credential";

const parse = () => parseArgs({ options: { "did-document": { type: "string" } }, allowPositionals: true });

function usage(): never {
  console.error("usage: npm run vc:verify -- credential.json [--did-document did.json]");
  process.exit(2);
}

async function main() {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch {
    usage();
  }
  const docPath = args.values["did-document"];
  const [file, ...extra] = args.positionals;
  if (!file || extra.length) usage();
  const credential = JSON.parse(fs.readFileSync(file, "utf8"));
  const issuer = typeof credential.issuer === "object" ? credential.issuer?.id : credential.issuer;
  let didDocument: unknown;
  if (docPath) {
    didDocument = JSON.parse(fs.readFileSync(docPath, "utf8"));
  } else {
    if (typeof issuer !== "string") throw new Error("the credential names no issuer to resolve");
    const url = didWebUrl(issuer);
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`resolving ${issuer} at ${url} answered ${res.status}`);
    didDocument = await res.json();
  }
  const outcome = verifyCredentialWithDidDocument(credential, didDocument as Record<string, unknown>);
  if (outcome.verified) {
    console.log(
      JSON.stringify({
        verified: true,
        issuer,
        verificationMethod: outcome.verificationMethod,
        subject: credential.credentialSubject ?? null,
      }),
    );
    return;
  }
  console.log(JSON.stringify({ verified: false, reason: outcome.reason }));
  process.exit(1);
}

main().catch((err: Error) => {
  console.error(`Cannot verify: ${err.message}`);
  process.exit(1);
});
