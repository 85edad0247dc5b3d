import Link from "next/link";
import { Wordmark } from "./wordmark";

const COLUMNS = [
  {
    title: "Product",
    links: [
      { href: "/pricing", label: "Pricing" },
      { href: "/signup?plan=builder", label: "Start free with Builder" },
      { href: "/console/sign-in", label: "Sign in to the console" },
    ],
  },
  {
    title: "Developers",
    links: [
      { href: "/docs", label: "API reference" },
      { href: "/v1/openapi.json", label: "OpenAPI document" },
      { href: "/v1/health", label: "Service health" },
    ],
  },
  {
    title: "Trust",
    links: [{ href: "/.well-known/did.json", label: "Issuer DID document" }],
  },
] as const;

/** The public site's footer: the same links on every public page, in columns that stack on a phone. */
export function SiteFooter() {
  return (
    <footer className="border-t border-slate-200 bg-white">
      <div className="mx-auto grid max-w-6xl gap-8 px-4 py-10 sm:px-6 md:grid-cols-[1.4fr_repeat(3,1fr)]">
        <div className="max-w-xs">
          <Link
            href="/"
            aria-label="Bind Identity, home"
            className="inline-block rounded focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            <Wordmark />
          </Link>
          <p className="mt-3 text-sm text-slate-600">
            Identity verification and account binding for Antelope chain accounts on EOS, WAX and Telos.
          </p>
        </div>
        <div className="grid grid-cols-2 gap-8 sm:grid-cols-3 md:col-span-3">
          {COLUMNS.map((c) => (
            <nav key={c.title} aria-label={c.title}>
              <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{c.title}</h2>
              <ul className="mt-3 space-y-2 text-sm">
                {c.links.map((l) => (
                  <li key={l.href}>
                    {/* /v1 and /.well-known are served by the API, not by Next: plain links. */}
                    {l.href.startsWith("/v1") || l.href.startsWith("/.well-known") ? (
                      <a href={l.href} className="text-slate-700 hover:text-indigo-700">
                        {l.label}
                      </a>
                    ) : (
                      <Link href={l.href} className="text-slate-700 hover:text-indigo-700">
                        {l.label}
                      </Link>
                    )}
                  </li>
                ))}
              </ul>
            </nav>
          ))}
        </div>
      </div>
      <div className="border-t border-slate-100">
        <p className="mx-auto max-w-6xl px-4 py-4 text-xs text-slate-500 sm:px-6">
          © {new Date().getFullYear()} Bind Identity. Identity documents stay with the KYC provider; we never store them.
        </p>
      </div>
    </footer>
  );
}
