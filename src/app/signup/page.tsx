import type { Metadata } from "next";
import { SiteFooter } from "@/components/marketing/site-footer";
import { SiteHeader } from "@/components/marketing/site-header";
import { SignupFlow } from "@/components/signup/signup-flow";
import { PLAN_IDS } from "@/components/signup/signup-state";

export const metadata: Metadata = {
  title: "Sign up · Bind Identity",
  description: "Create a Bind Identity organization: confirm your work email, choose a plan and get your API key.",
};

/** Self-service signup; `?plan=builder|growth|institutional` preselects the plan (links from / and /pricing). */
export default async function SignupPage({ searchParams }: { searchParams: Promise<{ plan?: string | string[] }> }) {
  const { plan } = await searchParams;
  const asked = PLAN_IDS.find((p) => p === plan);
  return (
    <>
      <SiteHeader />
      <main id="main" className="mx-auto max-w-5xl px-4 py-8 sm:px-6 sm:py-12">
        <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Sign up</p>
        <h1 className="mt-1 text-3xl font-bold tracking-tight sm:text-4xl">Create your organization</h1>
        <p className="mt-2 max-w-2xl text-slate-600">
          Confirm your work email, pick a plan and copy your API key: about two minutes from here to your first authenticated request.
        </p>
        <SignupFlow initialPlan={asked ?? "builder"} planFromUrl={asked !== undefined} />
      </main>
      <SiteFooter />
    </>
  );
}
