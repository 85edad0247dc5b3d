import fs from "node:fs/promises";
import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { GUIDES, guideBySlug } from "@/components/docs/guides";
import { Markdown } from "@/components/docs/markdown";
import { SiteFooter } from "@/components/marketing/site-footer";
import { SiteHeader } from "@/components/marketing/site-header";

type Props = { params: Promise<{ slug: string }> };

const GUIDES_DIR = path.join(process.cwd(), "docs/api/guides");

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const guide = guideBySlug((await params).slug);
  return { title: guide ? `${guide.title} · Bind Identity docs` : "Bind Identity docs" };
}

/** A guide of docs/api/guides, read from the repository when the page is served. */
export default async function GuidePage({ params }: Props) {
  const guide = guideBySlug((await params).slug);
  if (!guide) notFound();
  const source = await fs.readFile(path.join(GUIDES_DIR, `${guide.slug}.md`), "utf8");
  const index = GUIDES.findIndex((g) => g.slug === guide.slug);
  const next = GUIDES[index + 1];
  return (
    <>
      <SiteHeader />
      <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:flex lg:gap-10">
        <aside className="mb-6 lg:mb-0 lg:w-60 lg:shrink-0">
          <nav aria-label="Guides" className="lg:sticky lg:top-20">
            <Link href="/docs" className="text-sm font-medium text-indigo-700 hover:underline">
              ← All docs and the API reference
            </Link>
            <details className="mt-3 rounded-lg border border-slate-200 bg-white lg:hidden">
              <summary className="cursor-pointer px-4 py-2.5 text-sm font-medium text-slate-700">Guides</summary>
              <GuideList current={guide.slug} className="border-t border-slate-100 p-2" />
            </details>
            <div className="hidden lg:block">
              <p className="mt-5 mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Guides</p>
              <GuideList current={guide.slug} />
            </div>
          </nav>
        </aside>
        <main id="main" className="min-w-0 flex-1">
          <article className="max-w-3xl">
            <Markdown source={source} />
          </article>
          {next && (
            <p className="mt-12 max-w-3xl border-t border-slate-200 pt-6 text-sm text-slate-600">
              Next:{" "}
              <Link href={`/docs/guides/${next.slug}`} className="font-medium text-indigo-700 underline underline-offset-2">
                {next.title}
              </Link>{" "}
              — {next.summary}
            </p>
          )}
        </main>
      </div>
      <SiteFooter />
    </>
  );
}

function GuideList({ current, className = "" }: { current: string; className?: string }) {
  return (
    <ul className={`space-y-0.5 ${className}`}>
      {GUIDES.map((g) => (
        <li key={g.slug}>
          <Link
            href={`/docs/guides/${g.slug}`}
            aria-current={g.slug === current ? "page" : undefined}
            className={`block rounded-md px-3 py-1.5 text-sm ${g.slug === current ? "bg-indigo-50 font-medium text-indigo-800" : "text-slate-700 hover:bg-slate-100"}`}
          >
            {g.title}
          </Link>
        </li>
      ))}
    </ul>
  );
}
