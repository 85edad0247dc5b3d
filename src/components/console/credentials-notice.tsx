import Link from "next/link";

/** Above every console page while the member still signs in with the organization's shared password. */
export function CredentialsNotice() {
  return (
    <p className="mb-4 flex flex-col gap-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 sm:flex-row sm:items-center sm:justify-between">
      <span>You are signed in with the organization's shared password. Set up a passkey or your own password.</span>
      <Link href="/console/security" className="shrink-0 font-medium underline underline-offset-2">
        Set up my sign-in
      </Link>
    </p>
  );
}
