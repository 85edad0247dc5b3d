import type { Metadata } from "next";
import { SandboxCheckout } from "@/components/billing/sandbox-checkout";

export const metadata: Metadata = { title: "Sandbox checkout · Bind Identity" };

/** The sandbox payment provider's checkout page (its checkoutUrl): a test card settles the checkout. */
export default async function SandboxCheckoutPage({ params }: { params: Promise<{ sessionId: string }> }) {
  const { sessionId } = await params;
  return (
    <main className="mx-auto max-w-xl px-4 py-10 sm:px-6 sm:py-16">
      <p className="text-sm font-semibold uppercase tracking-wide text-amber-700">Sandbox · no real payment</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight">Checkout</h1>
      <SandboxCheckout sessionId={sessionId} />
    </main>
  );
}
