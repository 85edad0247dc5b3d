import { gunzipSync } from "node:zlib";
import { verifyCredentialWithDidDocument } from "./verify-credential";

// Checks a credential's W3C Bitstring Status List entries: each list credential is fetched (or
// given), its eddsa-jcs-2022 proof verified against the same issuer document, its purpose matched
// and the bit at the entry's index read. Pure apart from the injected fetch, so the offline
// verifier (`npm run vc:verify`) and the tests use it as it is.

/** How long a fetched list may stand for the current status: the lists' `Cache-Control: public, max-age=60`. */
const STATUS_LIST_FRESH_SEC = 60;

type DidDocument = Parameters<typeof verifyCredentialWithDidDocument>[1];
type StatusListCredential = {
  issuer?: unknown;
  type?: unknown;
  validFrom?: string;
  credentialSubject?: { statusPurpose?: unknown; encodedList?: unknown };
};
type Entry = { type?: unknown; statusPurpose?: unknown; statusListIndex?: unknown; statusListCredential?: unknown };

/**
 * A status list as the verifier obtained it: fetched just now, or read from a file the user gave,
 * fetched when the file was saved (`fetchedAt`).
 */
export type ObtainedList = { list: unknown; fetchedAt: Date; file?: string };

export type StatusEntryResult = {
  purpose: string;
  index: number;
  list: string;
  set: boolean;
  fetchedAt: string;
  /** Seconds between the list's fetch and the check. */
  ageSeconds: number;
  /** The --status-list file it was read from, when it was not fetched. */
  file?: string;
  listValidFrom: string | null;
};
export type StatusReport =
  | { checked: false; reason: string }
  | { checked: true; set: string[]; entries: StatusEntryResult[]; warnings?: string[] }
  | { checked: true; error: string };

/** "2 h 5 min", "3 min 20 s", "45 s": an age a person reads at a glance. */
function formatAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

/** Bit `index` of a multibase base64url GZIP bitstring, index 0 being the first byte's highest bit. */
export function bitAt(encodedList: string, index: number): boolean {
  if (!encodedList.startsWith("u")) throw new Error("encodedList is not multibase base64url (u…)");
  const bits = gunzipSync(Buffer.from(encodedList.slice(1), "base64url"));
  if (index < 0 || index >= bits.length * 8) throw new Error(`statusListIndex ${index} is outside the list of ${bits.length * 8} bits`);
  return (bits[index >> 3]! & (0x80 >> (index & 7))) !== 0;
}

async function checkEntry(
  e: Entry,
  issuer: unknown,
  didDocument: DidDocument,
  obtain: (url: string) => Promise<ObtainedList>,
  now: Date,
): Promise<StatusEntryResult> {
  const url = String(e.statusListCredential);
  const index = Number.parseInt(String(e.statusListIndex), 10);
  if (!Number.isInteger(index)) throw new Error(`statusListIndex ${JSON.stringify(e.statusListIndex)} is not an integer`);
  const obtained = await obtain(url);
  const list = obtained.list as StatusListCredential;
  const proof = verifyCredentialWithDidDocument(list, didDocument);
  if (!proof.verified) throw new Error(`the status list ${url} does not verify: ${proof.reason}`);
  if (list.issuer !== issuer) throw new Error(`the status list ${url} is issued by ${list.issuer}, not by ${issuer}`);
  if (!Array.isArray(list.type) || !list.type.includes("BitstringStatusListCredential"))
    throw new Error(`${url} is not a BitstringStatusListCredential`);
  if (list.credentialSubject?.statusPurpose !== e.statusPurpose)
    throw new Error(`the status list ${url} is for ${list.credentialSubject?.statusPurpose}, the entry for ${String(e.statusPurpose)}`);
  const set = bitAt(String(list.credentialSubject?.encodedList), index);
  return {
    purpose: String(e.statusPurpose),
    index,
    list: url,
    set,
    fetchedAt: obtained.fetchedAt.toISOString(),
    ageSeconds: Math.max(0, Math.round((now.getTime() - obtained.fetchedAt.getTime()) / 1000)),
    ...(obtained.file ? { file: obtained.file } : {}),
    listValidFrom: list.validFrom ?? null,
  };
}

/** What a list older than a minute means for the verdict, in words: how old it is and what may have changed since. */
function staleWarning(r: StatusEntryResult): string {
  const from = r.file ? `read from ${r.file}, fetched` : "fetched";
  return (
    `the ${r.purpose} status list ${r.list} was ${from} ${formatAge(r.ageSeconds)} ago (at ${r.fetchedAt}; ` +
    `its last change: ${r.listValidFrom ?? "unknown"}), longer than the ${STATUS_LIST_FRESH_SEC} s a list stands for the current status: ` +
    "its bit may have changed since; fetch the list again for the current status"
  );
}

export async function checkCredentialStatus(
  credential: { issuer?: unknown; credentialStatus?: unknown },
  didDocument: DidDocument,
  obtain: (url: string) => Promise<ObtainedList>,
  now: () => Date = () => new Date(),
): Promise<StatusReport> {
  const raw = credential.credentialStatus;
  const entries = ([] as Entry[]).concat((raw ?? []) as Entry | Entry[]).filter((e) => e?.type === "BitstringStatusListEntry");
  if (!entries.length)
    return { checked: false, reason: "the credential carries no Bitstring Status List entry (issued before status lists)" };
  const issuer = typeof credential.issuer === "object" ? (credential.issuer as { id?: unknown } | null)?.id : credential.issuer;
  try {
    const results: StatusEntryResult[] = [];
    for (const e of entries) results.push(await checkEntry(e, issuer, didDocument, obtain, now()));
    const warnings = results.filter((r) => r.ageSeconds > STATUS_LIST_FRESH_SEC).map(staleWarning);
    return {
      checked: true,
      set: results.filter((r) => r.set).map((r) => r.purpose),
      entries: results,
      ...(warnings.length ? { warnings } : {}),
    };
  } catch (err) {
    return { checked: true, error: (err as Error).message };
  }
}
