import Link from "next/link";
import { Wordmark } from "@/components/marketing/wordmark";

/** The slim header of the pages an end user reaches from a tenant's app (identity return, bind). */
export function HostedPageHeader() {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex h-14 max-w-2xl items-center px-4 sm:px-6">
        <Link href="/" aria-label="Bind Identity, home" className="rounded focus-visible:outline-2 focus-visible:outline-indigo-500">
          <Wordmark />
        </Link>
      </div>
    </header>
  );
}
