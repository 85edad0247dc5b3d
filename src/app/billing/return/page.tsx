import type { Metadata } from "next";
import { CheckoutReturn } from "@/components/billing/checkout-return";

export const metadata: Metadata = { title: "Your subscription · Bind Identity" };

/**
 * Where a card checkout returns the buyer: waits for the payment to settle, then reveals the key
 * once with the email proof the starting tab kept (only the session id is in this URL).
 */
export default async function CheckoutReturnPage({ searchParams }: { searchParams: Promise<{ session?: string; canceled?: string }> }) {
  const { session, canceled } = await searchParams;
  return (
    <main className="mx-auto max-w-xl px-4 py-10 sm:px-6 sm:py-16">
      <h1 className="text-3xl font-bold tracking-tight">Your subscription</h1>
      <CheckoutReturn sessionId={session ?? ""} canceled={canceled === "1"} />
    </main>
  );
}
