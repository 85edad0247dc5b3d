import { FormAlert } from "@/components/ui/states";
import { SigningInAs } from "./signing-in-as";
import type { SignIn } from "./use-sign-in";

/** How to sign in: a passkey, the member's password and authenticator code, or the organization's shared password. */
export function MethodStep({ s }: { s: SignIn }) {
  return (
    <div className="space-y-3">
      <SigningInAs email={s.form.email.trim()} onChange={() => s.go({ kind: "email" })} />
      <button type="button" className="btn-primary w-full" disabled={s.busy} onClick={() => void s.onPasskey()}>
        {s.busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
      </button>
      <button type="button" className="btn-secondary w-full" disabled={s.busy} onClick={() => s.go({ kind: "password" })}>
        Use password and authenticator code
      </button>
      <FormAlert error={s.error} />
      <div className="border-t border-slate-100 pt-3 text-sm text-slate-600">
        <p className="font-medium text-slate-900">First sign-in of a new organization?</p>
        <p className="mt-1">Use the console password shown at signup. Members who have not set up their own sign-in use it too.</p>
        <button type="button" className="btn-secondary mt-2 w-full" disabled={s.busy} onClick={() => s.go({ kind: "shared" })}>
          Sign in with the organization's console password
        </button>
      </div>
    </div>
  );
}
