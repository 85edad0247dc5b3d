import type { Metadata } from "next";
import { HostedPageHeader } from "@/components/identity/hosted-page-header";
import { CredentialOffer } from "@/components/wallet/credential-offer";

export const metadata: Metadata = {
  title: "Add your credential · Bind Identity",
  robots: { index: false, follow: false },
};

/**
 * The hosted credential offer page (offerPageUrl of POST /v1/wallet/offers). Its link carries the
 * offer after `#`, which browsers never send to a server: only hashes of the codes are kept, so the
 * page could not rebuild the offer anyway, and the person's browser draws it from the address.
 */
export default function CredentialOfferPage() {
  return (
    <div className="min-h-screen">
      <HostedPageHeader />
      <main id="main" className="mx-auto max-w-2xl px-4 py-8 sm:px-6 sm:py-12">
        <CredentialOffer />
      </main>
    </div>
  );
}
