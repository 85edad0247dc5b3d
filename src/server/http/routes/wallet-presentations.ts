import { z } from "zod";
import { publicUrl } from "@/env";
import { notFound } from "../../errors";
import * as wallet from "../../services/wallet";
import { reply, replyText, route } from "../route";

const ID = "5c0e2b7d-1f4a-4c3e-9b8d-7a6f5e4d3c2b";

const PresentationAnswer = z.record(z.string(), z.unknown()).meta({ id: "OpenId4VpAnswer" });
const PresentationStatusView = z.object({ status: wallet.PresentationStatus }).meta({ id: "PresentationStatus" });
const Declined = z.object({ status: z.literal("declined") }).meta({ id: "PresentationDeclined" });

/**
 * Presentations from people's wallets (OpenID for Verifiable Presentations 1.0): the tenant's
 * request and its outcome (/v1), and the endpoints the wallet and our consent page talk to
 * (public, in the specification's shapes; docs/api/guides/wallets.md), under the Wallets tag.
 */
export const walletPresentationRoutes = [
  route({
    method: "POST",
    path: "/v1/wallet/presentations",
    auth: { scope: "kyc_write" },
    tag: "Wallets",
    summary:
      "A request for exactly these claims of a person's wallet credential (OpenID4VP 1.0, DCQL, direct_post): show requestUri as a QR code or link, or send the person to consentPageUrl. The credential may have been issued for another organization; presenting it is the person's consent to the reuse. Answered once, within 10 minutes.",
    body: wallet.PresentationRequestInput,
    response: wallet.PresentationView,
    successStatus: 201,
    errors: ["NOT_FOUND"],
    examples: {
      request: { claims: ["age_over_18", "kyc_level"], purpose: "To open a trading account you must be an adult verified person." },
      response: {
        presentationId: ID,
        status: "pending",
        claims: ["age_over_18", "kyc_level"],
        requestUri: `openid4vp://?client_id=decentralized_identifier%3Adid%3Aweb%3Aid.example.com&request_uri=https%3A%2F%2Fid.example.com%2Foid4vp%2Frequests%2F${ID}`,
        consentPageUrl: `https://id.example.com/wallet/present/${ID}`,
        dcqlQuery: {
          credentials: [
            {
              id: "account_binding",
              format: "dc+sd-jwt",
              meta: { vct_values: ["https://id.example.com/vct/account-binding"] },
              claims: [{ path: ["age_over_18"] }, { path: ["kyc_level"] }],
            },
          ],
        },
        disclosed: null,
        reuse: false,
        refusal: null,
        expiresAt: "2026-03-02T09:40:00.000Z",
        respondedAt: null,
      },
    },
    handler: ({ ctx, body }) => wallet.createPresentationRequest(ctx, body),
  }),
  route({
    method: "GET",
    path: "/v1/wallet/presentations/{presentationId}",
    auth: { scope: "read" },
    tag: "Wallets",
    summary:
      "A presentation request's outcome: pending, verified (with the disclosed claims, exactly those asked for), refused (with a fixed reason), declined by the person, or expired.",
    params: wallet.PresentationParams,
    response: wallet.PresentationView,
    errors: ["NOT_FOUND"],
    handler: ({ ctx, params }) => wallet.getPresentation(ctx, params.presentationId),
  }),
  route({
    method: "GET",
    path: "/oid4vp/requests/{presentationId}",
    auth: "public",
    tag: "Wallets",
    summary:
      "The signed request object (RFC 9101) a wallet fetches by request_uri: a JWT of type oauth-authz-req+jwt, EdDSA by the issuer key named by its DID URL (kid), with the DCQL query, nonce, response_uri and the organization's name. 404 once answered or expired.",
    params: wallet.PresentationParams,
    errors: ["NOT_FOUND"],
    handler: async ({ state, params }) => {
      const answer = await wallet.requestObject(state.db, params.presentationId);
      if (!answer.jwt) throw notFound("Presentation request");
      return { ...replyText(answer.jwt, "application/oauth-authz-req+jwt"), headers: { "cache-control": "no-store" } };
    },
  }),
  route({
    method: "POST",
    path: "/oid4vp/responses/{presentationId}",
    auth: "public",
    tag: "Wallets",
    summary:
      "OpenID4VP 1.0 direct_post response endpoint, form-encoded vp_token (and state). The first answer decides: 200 with {redirect_uri} (back to the consent page) when verified, 400 {error: access_denied} when refused, 400 {error: invalid_request} for a malformed answer or a request unknown, expired or already answered.",
    params: wallet.PresentationParams,
    response: PresentationAnswer,
    handler: async ({ state, params }) => {
      const a = await wallet.responseEndpoint(state.db, params.presentationId, {
        method: state.req.method,
        url: publicUrl(state.req.path),
        headers: state.req.headers,
        body: state.req.body,
      });
      return reply(a.status, a.body, a.headers);
    },
  }),
  route({
    method: "GET",
    path: "/oid4vp/requests/{presentationId}/status",
    auth: "public",
    tag: "Wallets",
    summary:
      "The consent page's poll while the person's wallet answers: only the request's status (pending, verified, refused, declined, expired), no claim and no value.",
    params: wallet.PresentationParams,
    response: PresentationStatusView,
    errors: ["NOT_FOUND"],
    handler: async ({ state, params }) => {
      const view = await wallet.consentView(state.db, params.presentationId);
      if (!view) throw notFound("Presentation request");
      return reply(200, { status: view.status }, { "cache-control": "no-store" });
    },
  }),
  route({
    method: "POST",
    path: "/oid4vp/requests/{presentationId}/decline",
    auth: "public",
    tag: "Wallets",
    summary:
      "The consent page's Decline: the request ends as declined and nothing is sent. 409 when it was already answered or has expired; repeating a decline answers the same.",
    params: wallet.PresentationParams,
    response: Declined,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: async ({ state, params }) => wallet.declinePresentation(state.db, params.presentationId),
  }),
];
