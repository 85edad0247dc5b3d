import { useHydrated } from "@/components/ui/use-hydrated";
import { StepField } from "./step-field";
import type { SignIn } from "./use-sign-in";

/**
 * The work email; nothing is sent, so this step never tells whether an address is a member. It is
 * the step the server renders: disabled until the page's script runs, so no text typed earlier is lost.
 */
export function EmailStep({ s }: { s: SignIn }) {
  const hydrated = useHydrated();
  return (
    <form onSubmit={s.onEmail} noValidate>
      <fieldset disabled={!hydrated} className="min-w-0 space-y-4">
        <StepField s={s} id="email" label="Work email" type="email" className="field" autoComplete="username webauthn" />
        <button type="submit" className="btn-primary w-full">
          Continue
        </button>
      </fieldset>
    </form>
  );
}
