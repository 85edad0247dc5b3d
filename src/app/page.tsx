import type { Metadata } from "next";
import Link from "next/link";
import { CodeSample } from "@/components/marketing/code-sample";
import { CredentialCard } from "@/components/marketing/credential-card";
import { Icon, type IconName } from "@/components/marketing/icons";
import { SiteFooter } from "@/components/marketing/site-footer";
import { SiteHeader } from "@/components/marketing/site-header";

export const metadata: Metadata = {
  title: "Bind Identity · Know who is behind every free Antelope account",
  description:
    "KYC through external providers, wallet-signed account binding with a W3C verifiable credential, sanctions and PEP screening and a signed audit log, for EOS, WAX and Telos accounts.",
};

/** The public origin that names our issuer (did:web:<host>); the same variable the service reads. */
function publicOrigin(): string {
  const raw = process.env.BI_PUBLIC_URL || "http://localhost:3000";
  try {
    return new URL(raw).origin;
  } catch {
    return raw;
  }
}

const STEPS: { icon: IconName; title: string; body: string }[] = [
  {
    icon: "person",
    title: "Verify the person",
    body: "Your user completes KYC with an external provider on its hosted page. We receive the provider's signed review, not the documents.",
  },
  {
    icon: "signature",
    title: "Bind with the wallet key",
    body: "The person signs a plain-text binding with the account's owner or active key, so only the key holder can tie the account to themselves.",
  },
  {
    icon: "credential",
    title: "Issue a verifiable credential",
    body: "We issue a W3C AccountBinding credential with an Ed25519 proof. Anyone can check it against the issuer key in our published did:web document.",
  },
  {
    icon: "radar",
    title: "Screen and clear",
    body: "Sanctions and PEP screening at approval and on demand. Hits open cases in an AML queue, and clearing can require a second officer (four-eyes).",
  },
  {
    icon: "chain",
    title: "Keep the proof",
    body: "Every decision is written to a hash-chained audit log. Exports carry a signed checkpoint your auditors can verify offline.",
  },
];

const TRUST: { icon: IconName; title: string; body: string }[] = [
  {
    icon: "eyeOff",
    title: "What we never store",
    body: "No identity documents, selfies or names: they stay with the KYC provider. We keep the review outcome and a keyed hash of the applicant's attributes. API keys and one-time codes are stored only as hashes.",
  },
  {
    icon: "signature",
    title: "Signed requests",
    body: "Turn on HMAC request signing and every /v1 call must carry a fresh, single-use signature within a five-minute window. Webhooks we send you are signed too.",
  },
  {
    icon: "network",
    title: "IP allowlists",
    body: "Restrict each organization's API to your own networks, IPv4 or IPv6 ranges. A key used from anywhere else is refused before it can do anything.",
  },
  {
    icon: "archive",
    title: "Audit exports",
    body: "Export a date range of the audit log with its hashes and a checkpoint signed by our issuer key, and verify it away from the service.",
  },
];

const AUDIENCE = [
  "Wallets that sponsor a free account for every new user",
  "Games and apps that onboard players on WAX or EOS",
  "Exchanges and payment services on Telos and other Antelope chains",
];

export default function Home() {
  const origin = publicOrigin();
  // did:web percent-encodes a port in the host, as the service's own issuer DID does.
  const host = encodeURIComponent(new URL(origin).host);
  return (
    <>
      <SiteHeader />
      <main id="main">
        {/* Hero */}
        <section aria-labelledby="hero-title" className="relative overflow-hidden border-b border-slate-200 bg-white">
          <div
            aria-hidden="true"
            className="pointer-events-none absolute inset-x-0 top-0 h-96 bg-gradient-to-b from-indigo-50 to-transparent"
          />
          <div className="relative mx-auto grid max-w-6xl items-center gap-12 px-4 py-14 sm:px-6 sm:py-20 lg:grid-cols-[1.1fr_1fr]">
            <div>
              <p className="inline-flex items-center gap-2 rounded-full border border-indigo-200 bg-white px-3 py-1 text-xs font-medium text-indigo-700">
                KYC and account binding for EOS, WAX and Telos
              </p>
              <h1 id="hero-title" className="mt-5 text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl">
                Know who is behind every free chain account.
              </h1>
              <p className="mt-5 text-lg leading-relaxed text-slate-600">
                You give your users free Antelope accounts. Bind Identity tells you which verified person holds each one, proven by their
                own wallet signature, without you ever holding an identity document.
              </p>
              <div className="mt-8 flex flex-col gap-3 sm:flex-row sm:flex-wrap">
                <Link href="/signup?plan=builder" className="btn-primary px-5 py-2.5 text-base">
                  Start free with Builder
                </Link>
                <Link href="/pricing" className="btn-secondary px-5 py-2.5 text-base">
                  See pricing
                </Link>
                <Link href="/docs" className="btn-secondary px-5 py-2.5 text-base">
                  Read the docs
                </Link>
              </div>
              <p className="mt-4 text-sm text-slate-500">
                Builder is free and self-serve: your API key in minutes. Already a customer?{" "}
                <Link href="/console/sign-in" className="font-medium text-indigo-700 hover:underline">
                  Sign in to the console
                </Link>
                .
              </p>
            </div>
            <CredentialCard host={host} />
          </div>
        </section>

        {/* Who it is for */}
        <section aria-labelledby="audience-title" className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
          <div className="grid gap-10 lg:grid-cols-2">
            <div>
              <h2 id="audience-title" className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
                Free accounts, without anonymous holders
              </h2>
              <p className="mt-4 leading-relaxed text-slate-600">
                Sponsoring chain accounts makes onboarding easy, and it makes you answerable for who uses them. Regulators, partners and
                your own risk team want to know the person behind an account. Holding passports and selfies to answer that is a liability
                you do not need.
              </p>
              <p className="mt-4 leading-relaxed text-slate-600">
                Bind Identity creates the accounts, runs the checks through external KYC providers, and gives you a verifiable link between
                each account and a verified person, along with the screening, case work and audit trail a compliance team expects.
              </p>
            </div>
            <ul className="grid content-start gap-3">
              {AUDIENCE.map((a) => (
                <li key={a} className="flex items-start gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
                  <span className="mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-indigo-700">
                    <Icon name="check" className="h-4 w-4" />
                  </span>
                  <span className="text-slate-700">{a}</span>
                </li>
              ))}
            </ul>
          </div>
        </section>

        {/* How it works */}
        <section aria-labelledby="how-title" className="border-y border-slate-200 bg-white">
          <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
            <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">How it works</p>
            <h2 id="how-title" className="mt-2 text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
              From a new account to a proven holder
            </h2>
            <ol className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-5">
              {STEPS.map((s, i) => (
                <li key={s.title} className="relative rounded-xl border border-slate-200 bg-slate-50/60 p-5">
                  <div className="flex items-center gap-3">
                    <span className="flex h-10 w-10 items-center justify-center rounded-lg bg-indigo-600 text-white">
                      <Icon name={s.icon} />
                    </span>
                    <span className="text-sm font-semibold text-indigo-700">Step {i + 1}</span>
                  </div>
                  <h3 className="mt-4 font-semibold text-slate-900">{s.title}</h3>
                  <p className="mt-2 text-sm leading-relaxed text-slate-600">{s.body}</p>
                </li>
              ))}
            </ol>
          </div>
        </section>

        {/* Code */}
        <section aria-labelledby="code-title" className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
          <div className="grid items-start gap-10 lg:grid-cols-[0.85fr_1.5fr]">
            <div>
              <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">For developers</p>
              <h2 id="code-title" className="mt-2 text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
                One call creates the account
              </h2>
              <p className="mt-4 leading-relaxed text-slate-600">
                Send your user&apos;s public key with your API key. The account is created on chain as provisional, under the email, phone
                and KYC gates you choose for your organization.
              </p>
              <p className="mt-6 text-sm font-medium text-slate-900">Then, for each person:</p>
              <ul className="mt-3 space-y-3 text-sm text-slate-700">
                <li className="rounded-lg border border-slate-200 bg-white px-4 py-3">
                  <code className="font-mono text-xs font-medium text-indigo-700">POST /v1/kyc/start</code>
                  <span className="mt-1 block">sends the person to the provider&apos;s hosted check.</span>
                </li>
                <li className="rounded-lg border border-slate-200 bg-white px-4 py-3">
                  <code className="font-mono text-xs font-medium text-indigo-700">POST /v1/bind/challenge</code>
                  <span className="mt-1 block">gives the text their wallet signs;</span>
                  <code className="mt-2 block font-mono text-xs font-medium text-indigo-700">POST /v1/bind/confirm</code>
                  <span className="mt-1 block">checks the signature and returns the credential.</span>
                </li>
              </ul>
              <p className="mt-6 text-sm text-slate-600">
                Sandbox keys (<code className="font-mono text-xs">bi_test_…</code>) run the same calls on a simulated chain and sandbox KYC.{" "}
                <Link href="/docs" className="font-medium text-indigo-700 hover:underline">
                  Read the API reference
                </Link>
                .
              </p>
            </div>
            <div className="min-w-0">
              <CodeSample origin={origin} />
            </div>
          </div>
        </section>

        {/* Trust */}
        <section aria-labelledby="trust-title" className="bg-slate-900 text-white">
          <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
            <p className="text-sm font-semibold uppercase tracking-wide text-indigo-300">Security and compliance</p>
            <h2 id="trust-title" className="mt-2 text-2xl font-semibold tracking-tight sm:text-3xl">
              Built to be audited
            </h2>
            <ul className="mt-10 grid gap-6 sm:grid-cols-2">
              {TRUST.map((t) => (
                <li key={t.title} className="rounded-xl border border-white/10 bg-white/5 p-6">
                  <div className="flex items-center gap-3">
                    <span className="flex h-9 w-9 items-center justify-center rounded-lg bg-indigo-500/20 text-indigo-200">
                      <Icon name={t.icon} />
                    </span>
                    <h3 className="font-semibold">{t.title}</h3>
                  </div>
                  <p className="mt-3 text-sm leading-relaxed text-slate-300">{t.body}</p>
                </li>
              ))}
            </ul>
          </div>
        </section>

        {/* Closing call to action */}
        <section aria-labelledby="cta-title" className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
          <div className="rounded-2xl border border-indigo-100 bg-gradient-to-br from-indigo-50 to-white p-8 text-center sm:p-12">
            <h2 id="cta-title" className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
              Start free today
            </h2>
            <p className="mx-auto mt-3 max-w-xl text-slate-600">
              Builder is free: create an organization, get an API key and bind your first test account. Move to Growth or Institutional when
              your volume does.
            </p>
            <div className="mt-8 flex flex-col justify-center gap-3 sm:flex-row">
              <Link href="/signup?plan=builder" className="btn-primary px-5 py-2.5 text-base">
                Start free with Builder
              </Link>
              <Link href="/pricing" className="btn-secondary px-5 py-2.5 text-base">
                See pricing
              </Link>
            </div>
          </div>
        </section>
      </main>
      <SiteFooter />
    </>
  );
}
