import type { Metadata } from "next";
import Link from "next/link";
import { HostedBind } from "@/components/identity/hosted-bind";
import { Wordmark } from "@/components/marketing/wordmark";

export const metadata: Metadata = {
  title: "Link your account · Bind Identity",
  robots: { index: false, follow: false },
};

/**
 * The hosted bind page (docs/api/guides/binding.md, "Hosted bind page"). Its link carries the session's
 * token after `#`, which browsers never send to a server, so everything the page shows is read by
 * the browser from the public bind endpoints once it has loaded.
 */
export default function HostedBindPage() {
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex h-14 max-w-2xl items-center px-4 sm:px-6">
          <Link href="/" aria-label="Bind Identity, home" className="rounded focus-visible:outline-2 focus-visible:outline-indigo-500">
            <Wordmark />
          </Link>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-2xl px-4 py-8 sm:px-6 sm:py-12">
        <HostedBind />
      </main>
    </div>
  );
}
