// npm run export:verify -- export.json [--did-document did.json]
// Checks a signed export away from the service, as a regulator would: the issuer's key comes from
// the given DID document, or is resolved over did:web from the proof's verification method. An
// audit export (bi-audit-export/1): the checkpoint signature, every entry's hash (the recipe in
// docs/decisions.md, "Audit and exports"), the links between entries and the checkpoint's
// description of them. An AML case export (bi-aml-case-export/1): the checkpoint signature, the
// timeline's digest and event count, and that the checkpoint names this case. A person export
// (bi-person-export/1, an access request's answer): the checkpoint signature and the data's digest.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { didWebUrl } from "../src/server/crypto/did-web";
import { verifyCaseExport } from "../src/server/services/aml";
import { verifyExportArtifact } from "../src/server/services/audit";
import { PERSON_EXPORT_FORMAT, verifyPersonExport } from "../src/server/services/people";

const AUDIT_FORMAT = "bi-audit-export/1";
const CASE_FORMAT = "bi-aml-case-export/1";

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
    format?: unknown;
    proof?: { verificationMethod?: unknown };
    organizationId?: string;
    from?: string;
    to?: string;
    caseId?: string;
    personDid?: string;
  };
  if (artifact.format !== AUDIT_FORMAT && artifact.format !== CASE_FORMAT && artifact.format !== PERSON_EXPORT_FORMAT) {
    return fail(
      `the file is neither an audit export (${AUDIT_FORMAT}), an AML case export (${CASE_FORMAT}) nor a person export (${PERSON_EXPORT_FORMAT})`,
    );
  }
  const method = artifact.proof?.verificationMethod;
  if (typeof method !== "string" || !method.includes("#")) throw new Error("the export's proof names no verification method");
  const did = method.slice(0, method.indexOf("#"));
  const docPath = args.values["did-document"];
  let doc: DidDocument;
  if (docPath) doc = JSON.parse(fs.readFileSync(docPath, "utf8"));
  else {
    const url = didWebUrl(did);
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    } catch (err) {
      throw new Error(`resolving ${did}: ${url} could not be reached (${unreachable(err)})`);
    }
    if (!res.ok) throw new Error(`resolving ${did} at ${url} answered ${res.status}`);
    doc = (await res.json()) as DidDocument;
  }
  if (doc.id !== did) return fail(`the DID document is ${doc.id ?? "unnamed"}, not the signer ${did}`);
  const vm = doc.verificationMethod?.find((m) => m.id === method);
  const asserted = doc.assertionMethod?.some((m) => (typeof m === "string" ? m : m.id) === method);
  if (!vm?.publicKeyMultibase || !asserted) return fail(`the DID document does not list ${method} as an assertion method`);
  if (artifact.format === PERSON_EXPORT_FORMAT) {
    const checked = verifyPersonExport(artifact, vm.publicKeyMultibase);
    if (!checked.valid) return fail(checked.reason);
    const out = { valid: true, format: PERSON_EXPORT_FORMAT, organizationId: artifact.organizationId, personDid: artifact.personDid };
    console.log(JSON.stringify({ ...out, verificationMethod: method }));
    return;
  }
  if (artifact.format === CASE_FORMAT) {
    const checked = verifyCaseExport(artifact, vm.publicKeyMultibase);
    if (!checked.valid) return fail(checked.reason);
    console.log(
      JSON.stringify({
        valid: true,
        format: CASE_FORMAT,
        organizationId: artifact.organizationId,
        caseId: artifact.caseId,
        events: checked.events,
        verificationMethod: method,
      }),
    );
    return;
  }
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

/** Why a fetch failed, in the words of the network error under fetch's "fetch failed" (ECONNREFUSED, ENOTFOUND…). */
function unreachable(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

function fail(reason: string, entryId?: string): never {
  console.log(JSON.stringify({ valid: false, reason, ...(entryId ? { entryId } : {}) }));
  process.exit(1);
}

main().catch((err: Error) => {
  console.error(`Cannot verify: ${err.message}`);
  process.exit(1);
});
