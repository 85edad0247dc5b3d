/**
 * How a person (a KYC subject) is named wherever the console or an admin read shows one. We store
 * no applicant names (they stay with the KYC provider), so a person is named by a short,
 * readable form of their id: "Person 7F3A-21C9", from the first 8 hex digits of the uuid (random
 * in a v4 uuid). The full DID stays available beside it. Browser and server both import this file.
 */
export function personShortLabel(personDidOrId: string): string {
  const id = personDidOrId.split(":").pop() ?? personDidOrId;
  const hex = id.replace(/-/g, "").slice(0, 8).toUpperCase();
  return `Person ${hex.slice(0, 4)}-${hex.slice(4, 8)}`;
}

/** "Person 7F3A-21C9 · approved · GB": the short label with the KYC status and country when known. */
export function personLabel(p: { personDid: string; kycStatus?: string | null; country?: string | null }): string {
  return [personShortLabel(p.personDid), p.kycStatus?.replace("_", " "), p.country].filter(Boolean).join(" · ");
}

/** The person id at the end of a person DID (`…:people:<uuid>`), or null for any other DID. */
export function personIdOfDid(did: string): string | null {
  const m = /:people:([0-9a-f-]{36})$/i.exec(did);
  return m ? m[1]!.toLowerCase() : null;
}
