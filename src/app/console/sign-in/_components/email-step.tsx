import { StepField } from "./step-field";
import type { SignIn } from "./use-sign-in";

/** The work email; nothing is sent, so this step never tells whether an address is a member. */
export function EmailStep({ s }: { s: SignIn }) {
  return (
    <form onSubmit={s.onEmail} className="space-y-4" noValidate>
      <StepField s={s} id="email" label="Work email" type="email" className="field" autoComplete="username webauthn" />
      <button type="submit" className="btn-primary w-full">
        Continue
      </button>
    </form>
  );
}
