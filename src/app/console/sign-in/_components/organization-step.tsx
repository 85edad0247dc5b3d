import { FormAlert } from "@/components/ui/states";
import { SigningInAs } from "./signing-in-as";
import type { SignIn, Step } from "./use-sign-in";

/** A member of several organizations picks one for this session, after the password and code were checked. */
export function OrganizationStep({ s, step }: { s: SignIn; step: Extract<Step, { kind: "organization" }> }) {
  return (
    <div className="space-y-3">
      <SigningInAs email={s.form.email.trim()} onChange={() => s.go({ kind: "email" })} />
      <p className="text-sm text-slate-600">You are a member of several organizations. Choose one for this session.</p>
      <ul className="space-y-2">
        {step.organizations.map((o) => (
          <li key={o.id}>
            <button
              type="button"
              className="btn-secondary w-full justify-start"
              disabled={s.busy}
              onClick={() => void s.onOrganization(step.ticket, o.id)}
            >
              {o.name}
            </button>
          </li>
        ))}
      </ul>
      <FormAlert error={s.error} />
    </div>
  );
}
