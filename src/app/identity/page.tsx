import type { Metadata } from "next";
import Link from "next/link";
import { HostedPageHeader } from "@/components/identity/hosted-page-header";

export const metadata: Metadata = { title: "Identity verification · Bind Identity" };

/**
 * Where a hosted verification returns the applicant by default (redirectUrl under /identity). The
 * page cannot tell a returning applicant from someone who typed the address, and the result goes
 * to the tenant's app, never through here: so it says what the page is and where to go, and never
 * claims that a verification was submitted.
 */
export default function IdentityReturn() {
  return (
    <div className="min-h-screen">
      <HostedPageHeader />
      <main id="main" className="mx-auto max-w-2xl px-4 py-12 sm:px-6 sm:py-16">
        <h1 className="text-3xl font-bold tracking-tight">Identity verification</h1>
        <p className="mt-3 text-slate-700">
          Apps and wallets that use Bind Identity send you to an identity provider to check your identity document. When you finish there,
          the provider brings you back to this page.
        </p>
        <section aria-labelledby="identity-next" className="mt-8 rounded-lg border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
          <h2 id="identity-next" className="text-lg font-semibold">
            What to do now
          </h2>
          <ul className="mt-3 list-disc space-y-2 pl-5 text-slate-700">
            <li>
              <strong className="font-semibold">You have just finished a check:</strong> return to the app that sent you. It receives the
              result from the provider and tells you what happens next; nothing more is needed here.
            </li>
            <li>
              <strong className="font-semibold">You opened this page yourself:</strong> there is nothing to do here. To verify your
              identity, start from the app or wallet that asked you to.
            </li>
          </ul>
          <p className="mt-4 text-sm text-slate-600">
            This page shows no result and keeps no data: your documents go to the identity provider, and the app that sent you learns the
            outcome.
          </p>
        </section>
        <p className="mt-8 text-sm text-slate-600">
          Building with Bind Identity? Read the{" "}
          <Link href="/docs" className="font-medium text-indigo-700 underline underline-offset-2">
            API documentation
          </Link>{" "}
          or go to the{" "}
          <Link href="/" className="font-medium text-indigo-700 underline underline-offset-2">
            home page
          </Link>
          .
        </p>
      </main>
    </div>
  );
}
