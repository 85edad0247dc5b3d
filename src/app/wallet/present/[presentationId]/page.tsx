import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { HostedPageHeader } from "@/components/identity/hosted-page-header";
import { PresentationConsent } from "@/components/wallet/presentation-consent";
import { loadConsent } from "./consent";

export const metadata: Metadata = {
  title: "Share from your wallet · Bind Identity",
  robots: { index: false, follow: false },
};
export const dynamic = "force-dynamic";

/**
 * The hosted consent page of a wallet presentation request (consentPageUrl of POST
 * /v1/wallet/presentations, and the EU wallet identity verification): which organization asks for
 * which claims and why, the request as a QR code and a wallet link, and Decline. The credential may
 * have been issued for another organization; presenting it here is the person's consent to reuse it.
 */
export default async function PresentationConsentPage({ params }: { params: Promise<{ presentationId: string }> }) {
  const { presentationId } = await params;
  const consent = await loadConsent(presentationId);
  if (!consent) notFound();
  return (
    <div className="min-h-screen">
      <HostedPageHeader />
      <main id="main" className="mx-auto max-w-2xl px-4 py-8 sm:px-6 sm:py-12">
        <PresentationConsent
          id={consent.id}
          kind={consent.kind}
          initialStatus={consent.status}
          verifier={consent.verifier}
          purpose={consent.purpose}
          claims={consent.claims}
          requestUri={consent.requestUri}
          expiresAt={consent.expiresAt}
        />
      </main>
    </div>
  );
}
