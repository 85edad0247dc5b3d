import type { Metadata } from "next";
import { SandboxVerification } from "@/components/identity/sandbox-verification";

export const metadata: Metadata = { title: "Sandbox identity verification · Bind Identity" };

/**
 * The sandbox provider's hosted verification page (its verificationUrl). The applicant picks a
 * test document; the choice goes to the service as the sandbox provider's signed review.
 */
export default async function SandboxVerificationPage({ params }: { params: Promise<{ applicantId: string }> }) {
  const { applicantId } = await params;
  return (
    <main className="mx-auto max-w-2xl px-4 py-10 sm:px-6 sm:py-16">
      <p className="text-sm font-semibold uppercase tracking-wide text-amber-700">Sandbox · test identities only</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight">Verify your identity</h1>
      <p className="mt-3 text-slate-600">
        In production this step is the identity provider&apos;s document and face check. In the sandbox you choose which test document to
        submit, and the provider&apos;s review follows exactly as a real one would.
      </p>
      <SandboxVerification applicantId={applicantId} />
    </main>
  );
}
