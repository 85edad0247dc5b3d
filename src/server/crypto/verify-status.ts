import { gunzipSync } from "node:zlib";
import { verifyCredentialWithDidDocument } from "./verify-credential";

// Checks a credential's W3C Bitstring Status List entries: each list credential is fetched (or
// given), its eddsa-jcs-2022 proof verified against the same issuer document, its purpose matched
// and the bit at the entry's index read. Pure apart from the injected fetch, so the offline
// verifier (`npm run vc:verify`) and the tests use it as it is.

type DidDocument = Parameters<typeof verifyCredentialWithDidDocument>[1];
type StatusListCredential = {
  issuer?: unknown;
  type?: unknown;
  validFrom?: string;
  credentialSubject?: { statusPurpose?: unknown; encodedList?: unknown };
};
type Entry = { type?: unknown; statusPurpose?: unknown; statusListIndex?: unknown; statusListCredential?: unknown };

export type StatusEntryResult = {
  purpose: string;
  index: number;
  list: string;
  set: boolean;
  fetchedAt: string;
  listValidFrom: string | null;
};
export type StatusReport =
  | { checked: false; reason: string }
  | { checked: true; set: string[]; entries: StatusEntryResult[] }
  | { checked: true; error: string };

/** Bit `index` of a multibase base64url GZIP bitstring, index 0 being the first byte's highest bit. */
export function bitAt(encodedList: string, index: number): boolean {
  if (!encodedList.startsWith("u")) throw new Error("encodedList is not multibase base64url (u…)");
  const bits = gunzipSync(Buffer.from(encodedList.slice(1), "base64url"));
  if (index < 0 || index >= bits.length * 8) throw new Error(`statusListIndex ${index} is outside the list of ${bits.length * 8} bits`);
  return (bits[index >> 3]! & (0x80 >> (index & 7))) !== 0;
}

async function checkEntry(e: Entry, issuer: unknown, didDocument: DidDocument, fetchList: (url: string) => Promise<unknown>) {
  const url = String(e.statusListCredential);
  const index = Number.parseInt(String(e.statusListIndex), 10);
  if (!Number.isInteger(index)) throw new Error(`statusListIndex ${JSON.stringify(e.statusListIndex)} is not an integer`);
  const list = (await fetchList(url)) as StatusListCredential;
  const fetchedAt = new Date().toISOString();
  const proof = verifyCredentialWithDidDocument(list, didDocument);
  if (!proof.verified) throw new Error(`the status list ${url} does not verify: ${proof.reason}`);
  if (list.issuer !== issuer) throw new Error(`the status list ${url} is issued by ${list.issuer}, not by ${issuer}`);
  if (!Array.isArray(list.type) || !list.type.includes("BitstringStatusListCredential"))
    throw new Error(`${url} is not a BitstringStatusListCredential`);
  if (list.credentialSubject?.statusPurpose !== e.statusPurpose)
    throw new Error(`the status list ${url} is for ${list.credentialSubject?.statusPurpose}, the entry for ${String(e.statusPurpose)}`);
  const set = bitAt(String(list.credentialSubject?.encodedList), index);
  return { purpose: String(e.statusPurpose), index, list: url, set, fetchedAt, listValidFrom: list.validFrom ?? null };
}

export async function checkCredentialStatus(
  credential: { issuer?: unknown; credentialStatus?: unknown },
  didDocument: DidDocument,
  fetchList: (url: string) => Promise<unknown>,
): Promise<StatusReport> {
  const raw = credential.credentialStatus;
  const entries = ([] as Entry[]).concat((raw ?? []) as Entry | Entry[]).filter((e) => e?.type === "BitstringStatusListEntry");
  if (!entries.length)
    return { checked: false, reason: "the credential carries no Bitstring Status List entry (issued before status lists)" };
  const issuer = typeof credential.issuer === "object" ? (credential.issuer as { id?: unknown } | null)?.id : credential.issuer;
  try {
    const results = [];
    for (const e of entries) results.push(await checkEntry(e, issuer, didDocument, fetchList));
    return { checked: true, set: results.filter((r) => r.set).map((r) => r.purpose), entries: results };
  } catch (err) {
    return { checked: true, error: (err as Error).message };
  }
}
