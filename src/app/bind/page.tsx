import type { Metadata } from "next";
import { HostedBind } from "@/components/identity/hosted-bind";
import { HostedPageHeader } from "@/components/identity/hosted-page-header";

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
      <HostedPageHeader />
      <main id="main" className="mx-auto max-w-2xl px-4 py-8 sm:px-6 sm:py-12">
        <HostedBind />
      </main>
    </div>
  );
}
