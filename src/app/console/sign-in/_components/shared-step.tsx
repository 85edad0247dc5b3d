import { FormAlert } from "@/components/ui/states";
import { SigningInAs } from "./signing-in-as";
import { StepField } from "./step-field";
import type { SignIn } from "./use-sign-in";

/** The organization's shared console password: a new organization's first sign-in, or a member without their own yet. */
export function SharedStep({ s }: { s: SignIn }) {
  return (
    <form onSubmit={s.onShared} className="space-y-4" noValidate>
      <SigningInAs email={s.form.email.trim()} onChange={() => s.go({ kind: "email" })} />
      <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900">
        The organization's shared password is for the first sign-in of a new organization, and for members from before own sign-ins who have
        not set theirs up. Members then get a code by email. Approving an AML clear needs your own sign-in.
      </p>
      <StepField s={s} id="organizationId" label="Organization ID" className="field font-mono" autoComplete="organization" />
      <StepField s={s} id="sharedPassword" label="Console password" type="password" className="field" autoComplete="current-password" />
      <FormAlert error={s.error} />
      <button type="submit" className="btn-primary w-full" disabled={s.busy}>
        {s.busy ? "Checking…" : "Continue"}
      </button>
      <button type="button" className="btn-secondary w-full" onClick={() => s.go({ kind: "method" })}>
        Back
      </button>
    </form>
  );
}
