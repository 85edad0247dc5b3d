import * as did from "../../services/accounts";
import * as status from "../../services/credential-status";
import { etagMatches, preferredMediaType } from "../respond";
import { reply, replyText, route } from "../route";

const ISSUER = "did:web:id.example.com";
const KEY = "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const SUBJECT = "0195a7c2-41f6-7a3e-9c1d-5b2e8f4a6d10";
const LIST = "3f1d6c2e-8a0b-4c3e-9d51-6b7a2e4f9c10";

/**
 * How long a verifier may reuse a DID document: a person's shows their bindings' status, so as
 * short as a status list's minute (a change reaches verifiers within it), and the issuer's changes
 * only when its key rotates, when the previous key stays listed.
 */
const DID_DOCUMENT_MAX_AGE_SEC = 60;
const didCache = { "cache-control": `public, max-age=${DID_DOCUMENT_MAX_AGE_SEC}` };

/**
 * The media types a status list is served as, chosen by Accept: JSON by default, the VC 2.0
 * media type of a credential secured with an embedded proof (`application/vc`), and its earlier
 * name `application/vc+ld+json`. The bytes are the same; the ETag names the type, since a strong
 * ETag identifies one representation. `application/statuslist+jwt` answers the same bits as an
 * IETF Status List Token (the wallet credential's status), signed per request (its `iat` moves),
 * so without an ETag.
 */
const STATUS_LIST_MEDIA_TYPES = ["application/json", "application/vc", "application/vc+ld+json", status.STATUS_LIST_TOKEN_MEDIA_TYPE];
const ETAG_SUFFIX: Record<string, string> = { "application/vc": ".vc", "application/vc+ld+json": ".vcld" };

/** W3C did:web documents, unversioned paths (served by our pipeline, so the dot folder works). */
export const didRoutes = [
  route({
    method: "GET",
    path: "/.well-known/did.json",
    auth: "public",
    tag: "Resolution",
    summary: "The issuer's DID document with the Ed25519 keys that sign credentials and export checkpoints.",
    response: did.IssuerDidDocument,
    examples: {
      response: {
        "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
        id: ISSUER,
        verificationMethod: [{ id: `${ISSUER}#${KEY}`, type: "Multikey", controller: ISSUER, publicKeyMultibase: KEY }],
        assertionMethod: [`${ISSUER}#${KEY}`],
      },
    },
    cors: true,
    handler: async () => reply(200, did.issuerDidDocument(), didCache),
  }),
  route({
    method: "GET",
    path: "/people/{personId}/did.json",
    auth: "public",
    tag: "Resolution",
    summary:
      "A person's DID document, exposing the KYC status and the status (active, suspended, revoked) of each AccountBinding credential by its id; no accounts.",
    params: did.PersonDidParams,
    response: did.PersonDidDocument,
    errors: ["NOT_FOUND"],
    examples: {
      response: {
        "@context": ["https://www.w3.org/ns/did/v1"],
        id: `${ISSUER}:people:${SUBJECT}`,
        controller: ISSUER,
        kycStatus: "approved",
        bindings: [{ credentialId: "urn:uuid:5f0c2a8e-3b7d-4e21-9c4a-8d2f1e6b7a90", status: "active" }],
      },
    },
    cors: true,
    handler: async ({ params, state }) => reply(200, await did.personDidDocument(state.db, params.personId), didCache),
  }),
  route({
    method: "GET",
    path: "/orgs/{orgId}/did.json",
    auth: "public",
    tag: "Resolution",
    summary: "An organization's DID document, exposing the KYB status only.",
    params: did.OrgDidParams,
    response: did.OrganizationDidDocument,
    errors: ["NOT_FOUND"],
    examples: {
      response: {
        "@context": ["https://www.w3.org/ns/did/v1"],
        id: `${ISSUER}:orgs:${SUBJECT}`,
        controller: ISSUER,
        kybStatus: "not_started",
      },
    },
    cors: true,
    handler: async ({ params, state }) => reply(200, await did.orgDidDocument(state.db, params.orgId), didCache),
  }),
  route({
    method: "GET",
    path: "/credentials/status/{listId}",
    auth: "public",
    tag: "Resolution",
    summary:
      "A W3C BitstringStatusListCredential (revocation or suspension) signed by the issuer like the AccountBinding credential. JSON by default; Accept: application/vc (or application/vc+ld+json) answers that media type, with the same bytes; Accept: application/statuslist+jwt answers the same bits as an IETF Status List Token (a JWT signed EdDSA by the issuer key of /.well-known/jwt-vc-issuer), the status of wallet credentials. Cacheable for 60 seconds; send If-None-Match with the ETag to get 304 when nothing changed. Open to every origin (CORS).",
    params: status.StatusListParams,
    response: status.BitstringStatusListCredential,
    errors: ["NOT_FOUND"],
    examples: {
      response: {
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        id: `https://id.example.com/credentials/status/${LIST}`,
        type: ["VerifiableCredential", "BitstringStatusListCredential"],
        issuer: ISSUER,
        validFrom: "2026-03-09T14:02:11Z",
        credentialSubject: {
          id: `https://id.example.com/credentials/status/${LIST}#list`,
          type: "BitstringStatusList",
          statusPurpose: "revocation",
          encodedList: "uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA",
        },
        proof: {
          type: "DataIntegrityProof",
          cryptosuite: "eddsa-jcs-2022",
          created: "2026-03-09T14:02:11Z",
          verificationMethod: `${ISSUER}#${KEY}`,
          proofPurpose: "assertionMethod",
          proofValue: "z4AwKwzFcpmx1WHRgPVu6xN78G7VPGoSkw3HcbgBxkpUyzW2rTEvDDbairRyh4M1HGxxw2vivCCmgGxwf7iy5xxhk",
        },
      },
    },
    cors: true,
    // The JSON forms only: alsoProduces gives each type the JSON answer's schema, and a Status List
    // Token is a string (the summary describes it).
    alsoProduces: STATUS_LIST_MEDIA_TYPES.filter((t) => t !== "application/json" && t !== status.STATUS_LIST_TOKEN_MEDIA_TYPE),
    handler: async ({ params, state }) => {
      // A header that accepts none of them still gets JSON, as before negotiation existed.
      const mediaType = preferredMediaType(state.req.headers.get("accept"), STATUS_LIST_MEDIA_TYPES) ?? "application/json";
      if (mediaType === status.STATUS_LIST_TOKEN_MEDIA_TYPE) {
        const token = await status.publishedStatusListToken(state.db, params.listId);
        return {
          ...replyText(token, mediaType),
          headers: { vary: "Accept", "cache-control": `public, max-age=${status.STATUS_LIST_TOKEN_TTL_SEC}` },
        };
      }
      const published = await status.publishedStatusList(state.db, params.listId);
      const suffix = ETAG_SUFFIX[mediaType];
      const etag = suffix ? `${published.etag.slice(0, -1)}${suffix}"` : published.etag;
      const headers: Record<string, string> = {
        etag,
        vary: "Accept",
        "cache-control": `public, max-age=${status.STATUS_LIST_MAX_AGE_SEC}`,
      };
      if (etagMatches(state.req.headers.get("if-none-match"), etag)) return reply(304, undefined, headers);
      if (suffix) headers["content-type"] = mediaType;
      return reply(200, published.credential, headers);
    },
  }),
];
