import type { Metadata } from "next";
import { InviteAccept } from "./_components/invite-accept";

export const metadata: Metadata = { title: "Set up your sign-in · Bind Identity console", referrer: "no-referrer" };

/** An invitation link from the email: outside the signed-in console, the token is the only credential. */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <main className="flex min-h-screen items-start justify-center px-4 py-10 sm:items-center">
      <div className="w-full max-w-md">
        <p className="text-center text-sm font-semibold uppercase tracking-wide text-indigo-600">Bind Identity</p>
        <h1 className="mt-1 text-center text-2xl font-semibold tracking-tight">Set up your console sign-in</h1>
        <InviteAccept token={token} />
      </div>
    </main>
  );
}
