import { FormAlert } from "@/components/ui/states";
import { SigningInAs } from "./signing-in-as";
import { StepField } from "./step-field";
import type { SignIn } from "./use-sign-in";

/** The member's own password and the code their authenticator app shows. */
export function PasswordStep({ s }: { s: SignIn }) {
  return (
    <form onSubmit={s.onPassword} className="space-y-4" noValidate>
      <SigningInAs email={s.form.email.trim()} onChange={() => s.go({ kind: "email" })} />
      <StepField s={s} id="password" label="Password" type="password" className="field" autoComplete="current-password" />
      <StepField
        s={s}
        id="code"
        label="Authenticator code"
        className="field font-mono tracking-[0.3em]"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={7}
      />
      <FormAlert error={s.error} />
      <button type="submit" className="btn-primary w-full" disabled={s.busy}>
        {s.busy ? "Checking…" : "Sign in"}
      </button>
      <button type="button" className="btn-secondary w-full" onClick={() => s.go({ kind: "method" })}>
        Back
      </button>
    </form>
  );
}
