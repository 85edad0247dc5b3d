"use client";

import { CodeStep } from "./code-step";
import { EmailStep } from "./email-step";
import { MethodStep } from "./method-step";
import { OrganizationStep } from "./organization-step";
import { PasswordStep } from "./password-step";
import { SharedStep } from "./shared-step";
import { useSignIn } from "./use-sign-in";

/**
 * Email first, then the member's own credentials: a passkey (usernameless: the passkey names the
 * member and so the organization) or their password and a code from their authenticator app. The
 * email step asks the server nothing, so the form never tells whether an address is a member.
 * The organization's shared password stays for the first sign-in of a new organization and for
 * members from before own credentials who have not set them up yet. The steps and what moves
 * between them are `use-sign-in.ts`; each step's form is a file of its own.
 */
export function SignInForm() {
  const s = useSignIn();
  const { step, params, error } = s;
  return (
    <div className="card mt-6 space-y-4">
      {params.get("ended") && step.kind === "email" && !error && (
        <p role="status" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900">
          Your session has ended. Sign in again.
        </p>
      )}
      {params.get("accepted") && step.kind === "email" && !error && (
        <p role="status" className="rounded-md bg-emerald-50 p-3 text-sm text-emerald-900">
          Your sign-in is set up. Sign in with it now.
        </p>
      )}
      {step.kind === "email" && <EmailStep s={s} />}
      {step.kind === "method" && <MethodStep s={s} />}
      {step.kind === "password" && <PasswordStep s={s} />}
      {step.kind === "organization" && <OrganizationStep s={s} step={step} />}
      {step.kind === "shared" && <SharedStep s={s} />}
      {step.kind === "code" && <CodeStep s={s} step={step} />}
    </div>
  );
}
