import { AttestationSettings, AttestationSettingsInput, getAttestationSettings, setAttestationSettings } from "../../services/attestations";
import { route } from "../route";
import type { RouteDef } from "../types";

const SETTINGS = {
  enabled: true,
  publishCountry: false,
  validDays: 365,
  orgNumber: "7",
  contract: "bindattest",
  issuer: "bindissuer@attest",
  pending: 0,
  lastPublishedAt: "2026-03-09T14:02:11.000Z",
};

/** The organization's opt-in to on-chain attestations (docs/api/guides/onchain.md, "Publishing from the service"). */
export const attestationRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/attestations",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "Whether the organization's bindings are published into the on-chain attestation contract, what a row carries (country or not, days of validity), the organization's number on chain, the deployment's contract and issuer, and how many accounts the chain has still to follow.",
    response: AttestationSettings,
    examples: { response: SETTINGS },
    handler: ({ ctx }) => getAttestationSettings(ctx),
  }),
  route({
    method: "PUT",
    path: "/v1/admin/attestations",
    auth: { scope: "admin" },
    tag: "Admin",
    summary:
      "Sets the attestation settings given (at least one; the others stay). A change while publishing, or turning it off, has every account of the organization with a binding published again within seconds: its row issued anew, or removed once off. Enabling on a deployment without an attestation contract: 409 attestations_not_configured, nothing changed.",
    body: AttestationSettingsInput,
    response: AttestationSettings,
    errors: ["CONFLICT"],
    examples: {
      request: { enabled: true },
      response: { ...SETTINGS, pending: 42, lastPublishedAt: null },
    },
    handler: ({ ctx, body }) => setAttestationSettings(ctx, body),
  }),
];
