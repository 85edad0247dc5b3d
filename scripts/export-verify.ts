// npm run export:verify -- export.json [--did-document did.json]
// Checks a signed audit export away from the service, as a regulator would: the issuer's key comes
// from the given DID document, or is resolved over did:web from the proof's verification method;
// then the checkpoint signature, every entry's hash (the recipe in docs/decisions.md, "Audit and
// exports"), the links between entries and the checkpoint's description of them.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { didWebUrl } from "../src/server/crypto/did-web";
import { verifyExportArtifact } from "../src/server/services/audit";

const parse = () => parseArgs({ options: { "did-document": { type: "string" } }, allowPositionals: true });

function usage(): never {
  console.error("usage: npm run export:verify -- export.json [--did-document did.json]");
  process.exit(2);
}

type VerificationMethod = { id: string; publicKeyMultibase?: string };
type DidDocument = { id?: string; verificationMethod?: VerificationMethod[]; assertionMethod?: (string | VerificationMethod)[] };

async function main() {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch {
    usage();
  }
  const [file, ...extra] = args.positionals;
  if (!file || extra.length) usage();
  const artifact = JSON.parse(fs.readFileSync(file, "utf8")) as {
    proof?: { verificationMethod?: unknown };
    organizationId?: string;
    from?: string;
    to?: string;
  };
  const method = artifact.proof?.verificationMethod;
  if (typeof method !== "string" || !method.includes("#")) throw new Error("the export's proof names no verification method");
  const did = method.slice(0, method.indexOf("#"));
  const docPath = args.values["did-document"];
  let doc: DidDocument;
  if (docPath) doc = JSON.parse(fs.readFileSync(docPath, "utf8"));
  else {
    const url = didWebUrl(did);
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`resolving ${did} at ${url} answered ${res.status}`);
    doc = (await res.json()) as DidDocument;
  }
  if (doc.id !== did) return fail(`the DID document is ${doc.id ?? "unnamed"}, not the signer ${did}`);
  const vm = doc.verificationMethod?.find((m) => m.id === method);
  const asserted = doc.assertionMethod?.some((m) => (typeof m === "string" ? m : m.id) === method);
  if (!vm?.publicKeyMultibase || !asserted) return fail(`the DID document does not list ${method} as an assertion method`);
  const outcome = verifyExportArtifact(artifact, vm.publicKeyMultibase);
  if (!outcome.valid) return fail(outcome.reason, outcome.entryId);
  console.log(
    JSON.stringify({
      valid: true,
      entries: outcome.entries,
      organizationId: artifact.organizationId,
      from: artifact.from,
      to: artifact.to,
      verificationMethod: method,
    }),
  );
}

function fail(reason: string, entryId?: string): never {
  console.log(JSON.stringify({ valid: false, reason, ...(entryId ? { entryId } : {}) }));
  process.exit(1);
}

main().catch((err: Error) => {
  console.error(`Cannot verify: ${err.message}`);
  process.exit(1);
});
