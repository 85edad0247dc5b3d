import { z } from "zod";
import * as did from "../../services/accounts";
import { route } from "../route";

const Multikey = z.object({ id: z.string(), type: z.literal("Multikey"), controller: z.string(), publicKeyMultibase: z.string() });

/** W3C did:web documents, unversioned paths (served by our pipeline, so the dot folder works). */
export const didRoutes = [
  route({
    method: "GET",
    path: "/.well-known/did.json",
    auth: "public",
    tag: "Resolution",
    summary: "The issuer's DID document with the Ed25519 keys that sign credentials and export checkpoints.",
    response: z.object({
      "@context": z.array(z.string()),
      id: z.string(),
      verificationMethod: z.array(Multikey),
      assertionMethod: z.array(z.string()),
    }),
    handler: async () => did.issuerDidDocument(),
  }),
  route({
    method: "GET",
    path: "/people/{personId}/did.json",
    auth: "public",
    tag: "Resolution",
    summary: "A person's DID document, exposing the KYC status only.",
    params: z.object({ personId: z.string() }),
    response: z.object({ "@context": z.array(z.string()), id: z.string(), controller: z.string(), kycStatus: z.string() }),
    errors: ["NOT_FOUND"],
    handler: ({ params, state }) => did.personDidDocument(state.db, params.personId),
  }),
  route({
    method: "GET",
    path: "/orgs/{orgId}/did.json",
    auth: "public",
    tag: "Resolution",
    summary: "An organization's DID document, exposing the KYB status only.",
    params: z.object({ orgId: z.string() }),
    response: z.object({ "@context": z.array(z.string()), id: z.string(), controller: z.string(), kybStatus: z.string() }),
    errors: ["NOT_FOUND"],
    handler: ({ params, state }) => did.orgDidDocument(state.db, params.orgId),
  }),
];
