/** The guides of docs/api/guides, in reading order: file `<slug>.md`, page `/docs/guides/<slug>`. */
export const GUIDES = [
  { slug: "quickstart", title: "Quickstart", summary: "From nothing to a sandbox API key and a first free account, with curl." },
  { slug: "binding", title: "Binding a verified person", summary: "KYC, the wallet-signed bind challenge, and the credential it issues." },
  { slug: "sandbox", title: "Sandbox", summary: "Test identities, their outcomes, sanctions and PEP hits, the simulated chain." },
  { slug: "signing", title: "Request signing", summary: "HMAC-signed requests: headers, the canonical string, the replay window." },
  { slug: "webhooks", title: "Receiving webhooks", summary: "Verifying deliveries, retries, replays and de-duplication." },
  {
    slug: "credentials",
    title: "Verifying credentials",
    summary: "Checking an AccountBinding credential offline or with a standard library.",
  },
  {
    slug: "relying-parties",
    title: "Checking credential status",
    summary: "Revocation and suspension through W3C Bitstring Status Lists, checked with a standard library.",
  },
  { slug: "errors-and-limits", title: "Errors and limits", summary: "The error envelope, codes, rate limits and idempotent retries." },
  {
    slug: "aml-cases",
    title: "Working AML cases",
    summary: "Assignment and the next case, notes, the timeline and its signed export, evidence, deadlines.",
  },
  {
    slug: "screening-monitoring",
    title: "Ongoing screening",
    summary: "Re-screens after a list change, the periodic re-screen, runs and list versions.",
  },
  {
    slug: "unique-person",
    title: "One person, one account",
    summary: "The same identity document across verifications, pairwise person ids, and one claim per human.",
  },
  {
    slug: "wallets",
    title: "Credentials in the person's wallet",
    summary: "An OpenID4VCI offer, what the wallet does, the SD-JWT VC it receives and how a relying party verifies it.",
  },
  {
    slug: "onchain",
    title: "On-chain attestations",
    summary: "The attestation table contracts read to let only verified people in, require, reading it off chain, deploying it.",
  },
  {
    slug: "erasure",
    title: "Erasing a person, and access requests",
    summary: "Erasure of one person's data, what holds it and what stays; the signed export of everything held about them.",
  },
] as const;

export const guideBySlug = (slug: string) => GUIDES.find((g) => g.slug === slug);
