// npm run vc:verify -- credential.json [--did-document did.json] [--status-list list.json…] [--no-status]
// Verifies an AccountBinding credential (eddsa-jcs-2022) without the service: the issuer's DID
// document comes from the given file, or is resolved over did:web when none is given. Then its
// Bitstring Status List entries: each list is taken from a --status-list file with its id, else
// fetched from its URL; a revoked or suspended credential does not verify. One --status-list may
// be followed by several files (`--status-list a.json b.json`). A list file saved more than a
// minute ago still counts, and the verdict says how old it is (`warnings`).
import fs from "node:fs";
import { parseArgs } from "node:util";
import { didWebUrl } from "../src/server/crypto/did-web";
import { verifyCredentialWithDidDocument } from "../src/server/crypto/verify-credential";
import { checkCredentialStatus, type ObtainedList, type StatusReport } from "../src/server/crypto/verify-status";

const USAGE = "usage: npm run vc:verify -- credential.json [--did-document did.json] [--status-list list.json…] [--no-status]";

const parse = () =>
  parseArgs({
    options: { "did-document": { type: "string" }, "status-list": { type: "string", multiple: true }, "no-status": { type: "boolean" } },
    allowPositionals: true,
    tokens: true,
  });

function usage(): never {
  console.error(USAGE);
  process.exit(2);
}

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"));
const isStatusList = (value: unknown) =>
  Array.isArray((value as { type?: unknown } | null)?.type) &&
  (value as { type: unknown[] }).type.includes("BitstringStatusListCredential");

/**
 * The credential file and the status list files. A --status-list takes its value and then every
 * file that follows it up to the next option, so `--status-list a.json b.json` names two lists;
 * of those that follow, one that is not a status list is the credential (`--status-list a.json
 * credential.json` still works).
 */
function files(parsed: ReturnType<typeof parse>): { credential: string; lists: string[] } {
  const lists: string[] = [];
  const others: string[] = [];
  let afterList = false;
  for (const t of parsed.tokens ?? []) {
    if (t.kind === "option") {
      afterList = t.name === "status-list";
      if (afterList && t.value) lists.push(t.value);
    } else if (t.kind === "positional") {
      if (afterList && isStatusList(readJson(t.value))) lists.push(t.value);
      else others.push(t.value);
    } else afterList = false;
  }
  const [credential, ...extra] = others;
  if (!credential || extra.length) usage();
  return { credential, lists };
}

/** Why a fetch failed, in the words of the network error under fetch's "fetch failed" (ECONNREFUSED, ENOTFOUND…). */
function unreachable(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

/** GET `url` as JSON; a failure names the URL tried and what it was for. */
async function fetchJson(url: string, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new Error(`${what}: ${url} could not be reached (${unreachable(err)})`);
  }
  if (!res.ok) throw new Error(`${what}: ${url} answered ${res.status}`);
  return res.json();
}

async function main() {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch {
    usage();
  }
  const docPath = args.values["did-document"];
  const given = files(args);
  const credential = JSON.parse(fs.readFileSync(given.credential, "utf8"));
  const issuer = typeof credential.issuer === "object" ? credential.issuer?.id : credential.issuer;
  let didDocument: unknown;
  if (docPath) {
    didDocument = readJson(docPath);
  } else {
    if (typeof issuer !== "string") throw new Error("the credential names no issuer to resolve");
    didDocument = await fetchJson(didWebUrl(issuer), `resolving the issuer ${issuer}`);
  }
  const outcome = verifyCredentialWithDidDocument(credential, didDocument as Record<string, unknown>);
  if (!outcome.verified) {
    console.log(JSON.stringify({ verified: false, reason: outcome.reason }));
    process.exit(1);
  }
  const status: StatusReport = args.values["no-status"]
    ? { checked: false, reason: "--no-status" }
    : await checkCredentialStatus(credential, didDocument as Record<string, unknown>, listSource(given.lists));
  const warnings = "warnings" in status ? status.warnings : undefined;
  const refused = statusRefusal(status);
  const subject = credential.credentialSubject ?? null;
  if (refused) {
    console.log(JSON.stringify({ verified: false, reason: refused, ...(warnings ? { warnings } : {}), status }));
    process.exit(1);
  }
  console.log(
    JSON.stringify({
      verified: true,
      issuer,
      verificationMethod: outcome.verificationMethod,
      subject,
      ...(warnings ? { warnings } : {}),
      status,
    }),
  );
}

/**
 * Lists given as files (matched by their `id`; fetched when the file was last written, as far as
 * anyone can tell), else fetched from the entry's URL now.
 */
function listSource(paths: string[]) {
  const given = new Map<string, ObtainedList>();
  for (const file of paths) {
    const list = readJson(file) as { id?: unknown };
    given.set(String(list.id), { list, fetchedAt: fs.statSync(file).mtime, file });
  }
  return async (url: string): Promise<ObtainedList> =>
    given.get(url) ?? { list: await fetchJson(url, "fetching the status list"), fetchedAt: new Date() };
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
