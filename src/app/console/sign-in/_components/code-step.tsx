import { FormAlert } from "@/components/ui/states";
import { StepField } from "./step-field";
import type { SignIn, Step } from "./use-sign-in";

/** The 6-digit code emailed after the shared password, once the organization has members. */
export function CodeStep({ s, step }: { s: SignIn; step: Extract<Step, { kind: "code" }> }) {
  return (
    <form onSubmit={(e) => s.onCode(e, step.challengeId)} className="space-y-4" noValidate>
      <p className="text-sm text-slate-600">
        We emailed a 6-digit code to <strong>{s.form.email.trim()}</strong>. It is valid for 10 minutes.
      </p>
      {step.devCode ? (
        <p data-testid="dev-code" className="rounded-md border border-sky-200 bg-sky-50 p-3 text-sm text-sky-900">
          <span className="font-semibold">Sandbox code: {step.devCode}.</span> This server runs for local development, so it shows the code
          here as well as in the email (<code>npm run outbox</code>). A hosted service only emails it.
        </p>
      ) : null}
      <StepField
        s={s}
        id="emailCode"
        label="Sign-in code"
        className="field font-mono tracking-[0.4em]"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        // The field appears because the member just asked for the code: focus goes where they type next.
        autoFocus
      />
      <FormAlert error={s.error} />
      <button type="submit" className="btn-primary w-full" disabled={s.busy}>
        {s.busy ? "Checking…" : "Verify and sign in"}
      </button>
      <button type="button" className="btn-secondary w-full" onClick={() => s.go({ kind: "shared" })}>
        Start again
      </button>
    </form>
  );
}
