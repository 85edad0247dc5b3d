import type { Metadata } from "next";

export const metadata: Metadata = { title: "Identity verification · Bind Identity" };

/** Where a hosted verification returns the applicant by default (redirectUrl under /identity). */
export default function IdentityDone() {
  return (
    <main className="mx-auto max-w-2xl px-4 py-16 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight">Thank you</h1>
      <p className="mt-3 text-slate-600">Your verification was submitted. You can return to the app that sent you here.</p>
    </main>
  );
}
