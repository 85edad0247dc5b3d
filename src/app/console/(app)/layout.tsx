import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { CredentialsNotice } from "@/components/console/credentials-notice";
import { ConsoleShell } from "@/components/console/shell";
import type { Role } from "@/lib/roles";
import { consoleContextFrom } from "@/server/auth/session";
import { credentialStatus } from "@/server/services/org";

export const metadata: Metadata = { title: "Console · Bind Identity" };
export const dynamic = "force-dynamic";

/** Every console page: no valid session (or a deactivated member) goes to sign-in. */
export default async function ConsoleLayout({ children }: { children: React.ReactNode }) {
  const svc = await consoleContextFrom(await cookies(), await headers());
  if (svc?.actor.type !== "member") redirect("/console/sign-in");
  const me = {
    email: svc.actor.email,
    role: svc.actor.role as Role,
    organizationName: svc.org.name,
    organizationId: svc.org.id,
    environment: svc.org.environment,
  };
  // Asked on every page until the member has a sign-in of their own (docs/security.md, console credentials).
  const own = await credentialStatus(svc);
  const notice = !own.signedInWithOwnCredentials && own.passkeys === 0 && !own.password ? <CredentialsNotice /> : null;
  return (
    <ConsoleShell me={me}>
      {notice}
      {children}
    </ConsoleShell>
  );
}
