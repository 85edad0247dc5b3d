import type { Metadata } from "next";
import { Pricing } from "@/components/marketing/pricing";
import { SiteFooter } from "@/components/marketing/site-footer";
import { SiteHeader } from "@/components/marketing/site-header";

export const metadata: Metadata = { title: "Pricing · Bind Identity" };

export default function PricingPage() {
  return (
    <>
      <SiteHeader />
      <main id="main">
        <div className="mx-auto max-w-6xl px-4 pb-10 pt-14 text-center sm:px-6 sm:pt-20">
          <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Pricing</p>
          <h1 className="mt-2 text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl">Start free, grow when you need to</h1>
          <p className="mx-auto mt-5 max-w-2xl text-lg leading-relaxed text-slate-600">
            The prices and limits below come straight from our plan catalog, the same one that enforces your quota.
          </p>
        </div>
        <Pricing />
      </main>
      <SiteFooter />
    </>
  );
}
