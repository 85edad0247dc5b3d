import { z } from "zod";
import { env } from "@/env";
import { exactlyOneProof, ProofFields } from "../../platform/wallet-proof.schema";
import { AccountBindingCredential } from "./bind.schema";

const did = z.string().min(1).max(300);
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Why a bind session's redirect URL is refused, or null when it is fine (docs/api/guides/binding.md,
 * "Hosted bind page"): an absolute https URL with no credentials and no fragment; plain http only
 * to a loopback host outside production, for a tenant developing on their own machine.
 */
export function bindRedirectProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol === "http:") {
    if (!loopback || env().BI_ENV === "production") return "must use https (plain http only to localhost outside production)";
  } else if (url.protocol !== "https:") return "must use https";
  if (url.username || url.password) return "must not carry credentials";
  if (url.hash) return "must not carry a fragment";
  return null;
}

export const BindSessionInput = z
  .object({
    accountDid: did,
    personDid: did,
    redirectUrl: z
      .string()
      .max(2048)
      .superRefine((v, ctx) => {
        const problem = bindRedirectProblem(v);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional()
      .describe("Where the page sends the user once the account is bound, with bindSession, status and bindingId added to its query"),
  })
  .strict();

export const BindSessionParams = z.object({ id: z.uuid() });

const BindSessionStatus = z
  .enum(["open", "bound", "expired"])
  .describe("open until the wallet's proof binds the account; expired once the link's hour is over without a binding");

export const BindSessionCreated = z.object({
  sessionId: z.string(),
  url: z.string().describe("The page to send the user to; the token after # never reaches a server or a Referer header"),
  expiresAt: z.iso.datetime(),
  redirectUrl: z.string().nullable(),
});

export const BindSessionView = z.object({
  sessionId: z.string(),
  status: BindSessionStatus,
  accountDid: z.string(),
  personDid: z.string(),
  redirectUrl: z.string().nullable(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  binding: z
    .object({
      bindingId: z.string(),
      status: z.enum(["active", "suspended", "revoked"]),
      bindingVcHash: z.string(),
      credential: AccountBindingCredential,
    })
    .nullable()
    .describe("The binding this session made, with its credential; null until bound"),
});

const token = z.string().min(20).max(200).describe("The token from the page's link fragment");

export const HostedBindInput = z.object({ token }).strict();

export const HostedBindConfirmInput = z
  .object({ token, nonce: z.string().min(1).max(200), ...ProofFields })
  .strict()
  .superRefine(exactlyOneProof);

export const HostedBindView = z.object({
  status: BindSessionStatus,
  organization: z.object({ name: z.string() }),
  account: z.object({ did: z.string(), name: z.string(), chain: z.string() }),
  person: z.object({
    did: z.string(),
    kycLevel: z.string(),
    verifiedAt: z.iso.datetime().nullable(),
    country: z.string().nullable(),
  }),
  chain: z.object({ id: z.string(), url: z.string() }).describe("What the page's WharfKit SessionKit talks to"),
  sandboxWallet: z.boolean().describe("Whether the page may offer the private-key test wallet (never in production)"),
  expiresAt: z.iso.datetime(),
  redirectTo: z.string().nullable().describe("Set once bound: the tenant's redirect URL with the result in its query"),
});

export const HostedBindConfirmed = z.object({
  bound: z.literal(true),
  accountDid: z.string(),
  bindingVcHash: z.string(),
  redirectTo: z.string().nullable(),
});
