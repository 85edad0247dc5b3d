import type { Metadata } from "next";
import Link from "next/link";
import { ApiReference } from "@/components/docs/api-reference";
import { GUIDES } from "@/components/docs/guides";
import { SiteFooter } from "@/components/marketing/site-footer";
import { SiteHeader } from "@/components/marketing/site-header";

export const metadata: Metadata = { title: "API documentation · Bind Identity" };

function DocsIntro() {
  return (
    <header>
      <p className="text-sm font-semibold text-indigo-700">Documentation</p>
      <h1 className="mt-1 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">Bind Identity API</h1>
      <p className="mt-3 max-w-3xl text-lg text-slate-600">
        Verify the people behind Antelope accounts, bind them with a wallet signature and keep the evidence. Start with the guides, then
        look up any operation in the reference below.
      </p>
      <nav aria-label="Guides" className="mt-6">
        <h2 className="sr-only">Guides</h2>
        <ul className="grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
          {GUIDES.map((g) => (
            <li key={g.slug}>
              <Link
                href={`/docs/guides/${g.slug}`}
                className="block h-full rounded-lg border border-slate-200 bg-white p-4 shadow-sm transition hover:border-indigo-300 hover:shadow focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                <span className="font-semibold text-slate-900">{g.title}</span>
                <span className="mt-1 block text-sm text-slate-600">{g.summary}</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}

/** /docs: the guides and the API reference generated from /v1/openapi.json. */
export default function DocsPage() {
  return (
    <>
      <SiteHeader />
      <ApiReference intro={<DocsIntro />} />
      <SiteFooter />
    </>
  );
}
