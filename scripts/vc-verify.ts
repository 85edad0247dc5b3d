// npm run vc:verify -- credential.json [--did-document did.json] [--status-list list.json…] [--no-status]
// Verifies an AccountBinding credential (eddsa-jcs-2022) without the service: the issuer's DID
// document comes from the given file, or is resolved over did:web when none is given. Then its
// Bitstring Status List entries: each list is taken from a --status-list file with its id, else
// fetched from its URL; a revoked or suspended credential does not verify.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { didWebUrl } from "../src/server/crypto/did-web";
import { verifyCredentialWithDidDocument } from "../src/server/crypto/verify-credential";
import { checkCredentialStatus, type StatusReport } from "../src/server/crypto/verify-status";

const parse = () =>
  parseArgs({
    options: { "did-document": { type: "string" }, "status-list": { type: "string", multiple: true }, "no-status": { type: "boolean" } },
    allowPositionals: true,
  });

function usage(): never {
  console.error("usage: npm run vc:verify -- credential.json [--did-document did.json] [--status-list list.json…] [--no-status]");
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
  if (!outcome.verified) {
    console.log(JSON.stringify({ verified: false, reason: outcome.reason }));
    process.exit(1);
  }
  const status: StatusReport = args.values["no-status"]
    ? { checked: false, reason: "--no-status" }
    : await checkCredentialStatus(credential, didDocument as Record<string, unknown>, listSource(args.values["status-list"] ?? []));
  const refused = statusRefusal(status);
  const subject = credential.credentialSubject ?? null;
  if (refused) {
    console.log(JSON.stringify({ verified: false, reason: refused, status }));
    process.exit(1);
  }
  console.log(JSON.stringify({ verified: true, issuer, verificationMethod: outcome.verificationMethod, subject, status }));
}

/** Lists given as files (matched by their `id`), else fetched from the entry's URL. */
function listSource(files: string[]) {
  const given = new Map<string, unknown>();
  for (const f of files) {
    const list = JSON.parse(fs.readFileSync(f, "utf8"));
    given.set(String(list.id), list);
  }
  return async (url: string) => {
    if (given.has(url)) return given.get(url);
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`fetching the status list ${url} answered ${res.status}`);
    return res.json();
  };
}

function statusRefusal(status: StatusReport): string | null {
  if (!status.checked) return null;
  if ("error" in status) return `the credential's status could not be checked: ${status.error}`;
  if (status.set.includes("revocation")) return "the credential is revoked (its revocation bit is set)";
  if (status.set.includes("suspension")) return "the credential is suspended (its suspension bit is set)";
  return null;
}

main().catch((err: Error) => {
  console.error(`Cannot verify: ${err.message}`);
  process.exit(1);
});
