"use client";

import { useState } from "react";
import type { z } from "zod";
import { billingCall, errorText } from "@/components/billing/checkout-api";
import { useHydrated } from "@/components/ui/use-hydrated";
import type { BillingEmailProof, BillingEmailStarted } from "@/server/services/billing";
import type { SignupState } from "./signup-state";
import { checks, ErrorNote, FieldError, Spinner, useSending } from "./signup-ui";

type Update = (patch: Partial<SignupState>) => void;
type Started = z.infer<typeof BillingEmailStarted>;
type Proof = z.infer<typeof BillingEmailProof>;

const startEmail = (email: string) => billingCall<Started>("/v1/billing/email/otp/start", { email });

const clock = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });

/** Step 1: the work email that receives the code and becomes the organization's contact. */
export function EmailStep({ state, update, onDevCode }: { state: SignupState; update: Update; onDevCode: (code: string | null) => void }) {
  const [email, setEmail] = useState(state.email);
  // The step the server renders: disabled until the page's script runs, so no text typed earlier is lost.
  const hydrated = useHydrated();
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { busy, run } = useSending();
  const problem = checks.email(email);
  const shown = touched ? problem : null;

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (problem) return;
    void run(async () => {
      setError(null);
      try {
        const out = await startEmail(email.trim());
        onDevCode(out.devCode ?? null);
        update({
          step: "code",
          email: email.trim(),
          challengeId: out.challengeId,
          emailMasked: out.emailMasked,
          codeExpiresAt: out.expiresAt,
        });
      } catch (err) {
        setError(errorText(err));
      }
    });
  }

  return (
    <form onSubmit={submit} noValidate>
      <fieldset disabled={!hydrated} className="min-w-0 space-y-5">
        <div>
          <h2 className="text-xl font-semibold tracking-tight">Start with your work email</h2>
          <p className="mt-1 text-sm text-slate-600">
            We send a 6-digit code to confirm it. The address becomes your organization&apos;s contact, so consumer and disposable mailboxes
            are not accepted.
          </p>
        </div>
        <div>
          <label htmlFor="signup-email" className="label">
            Work email
          </label>
          <input
            id="signup-email"
            type="email"
            inputMode="email"
            autoComplete="email"
            className="field"
            placeholder="you@company.com"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              setError(null);
              if (e.target.value.includes("@") && e.target.value.includes(".")) setTouched(true);
            }}
            onBlur={() => email && setTouched(true)}
            aria-invalid={shown ? true : undefined}
            aria-describedby={shown ? "signup-email-error" : undefined}
          />
          <FieldError id="signup-email-error" text={shown} />
        </div>
        {error ? <ErrorNote>{error}</ErrorNote> : null}
        <button type="submit" className="btn-primary w-full py-2.5 sm:w-auto" disabled={busy}>
          {busy ? <Spinner /> : null}
          {busy ? "Sending the code…" : "Send the code"}
        </button>
      </fieldset>
    </form>
  );
}

/** Step 2: the code from the email (or, where the service allows dev codes, from its answer). */
export function CodeStep({
  state,
  update,
  devCode,
  onDevCode,
}: {
  state: SignupState;
  update: Update;
  devCode: string | null;
  onDevCode: (code: string | null) => void;
}) {
  const [code, setCode] = useState("");
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const sending = useSending();
  const resending = useSending();
  const problem = checks.code(code);
  const shown = touched ? problem : null;

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (problem || !state.challengeId) return;
    const challengeId = state.challengeId;
    void sending.run(async () => {
      setError(null);
      try {
        const out = await billingCall<Proof>("/v1/billing/email/otp/confirm", { challengeId, code: code.replace(/\s/g, "") });
        update({
          step: "plan",
          emailProofToken: out.emailProofToken,
          proofExpiresAt: Date.now() + out.expiresInSec * 1000,
          emailMasked: out.emailMasked,
          challengeId: undefined,
          codeExpiresAt: undefined,
          devCode: undefined,
        });
      } catch (err) {
        setError(errorText(err));
      }
    });
  }

  function resend() {
    void resending.run(async () => {
      setError(null);
      setNotice(null);
      try {
        const out = await startEmail(state.email);
        onDevCode(out.devCode ?? null);
        setCode("");
        setTouched(false);
        update({ challengeId: out.challengeId, emailMasked: out.emailMasked, codeExpiresAt: out.expiresAt });
        setNotice(`A new code is on its way to ${out.emailMasked}. Use the code from the newest email.`);
      } catch (err) {
        setError(errorText(err));
      }
    });
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-5">
      <div>
        <h2 className="text-xl font-semibold tracking-tight">Enter the code we emailed you</h2>
        <p className="mt-1 text-sm text-slate-600">
          We sent a 6-digit code to <span className="font-medium text-slate-900">{state.emailMasked ?? state.email}</span>
          {state.codeExpiresAt ? `. It is valid until ${clock(state.codeExpiresAt)}.` : "."}
        </p>
      </div>
      {devCode ? (
        <div data-testid="dev-code" className="rounded-md border border-sky-200 bg-sky-50 p-3 text-sm text-sky-900">
          <p className="font-semibold">Sandbox code: {devCode}</p>
          <p className="mt-1">
            This server runs for local development, so it shows the code here as well as in the email. A hosted service only emails it.
          </p>
          <button
            type="button"
            className="btn-secondary mt-2"
            onClick={() => {
              setCode(devCode);
              setTouched(true);
            }}
          >
            Use this code
          </button>
        </div>
      ) : null}
      <div>
        <label htmlFor="signup-code" className="label">
          6-digit code
        </label>
        <input
          id="signup-code"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={12}
          className="field max-w-48 font-mono text-lg tracking-[0.3em]"
          value={code}
          onChange={(e) => {
            setCode(e.target.value);
            setError(null);
            if (e.target.value.replace(/\s/g, "").length >= 6 || /\D/.test(e.target.value.replace(/\s/g, ""))) setTouched(true);
          }}
          onBlur={() => code && setTouched(true)}
          aria-invalid={shown ? true : undefined}
          aria-describedby={shown ? "signup-code-error" : undefined}
        />
        <FieldError id="signup-code-error" text={shown} />
      </div>
      {error ? <ErrorNote>{error}</ErrorNote> : null}
      {notice ? (
        <p role="status" className="text-sm text-emerald-800">
          {notice}
        </p>
      ) : null}
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <button type="submit" className="btn-primary py-2.5" disabled={sending.busy}>
          {sending.busy ? <Spinner /> : null}
          {sending.busy ? "Checking…" : "Confirm the code"}
        </button>
        <button type="button" className="btn-secondary py-2.5" onClick={resend} disabled={resending.busy}>
          {resending.busy ? "Sending…" : "Send a new code"}
        </button>
        <button
          type="button"
          className="text-sm font-medium text-indigo-700 underline underline-offset-2"
          onClick={() => update({ step: "email", challengeId: undefined, codeExpiresAt: undefined })}
        >
          Use another email
        </button>
      </div>
    </form>
  );
}
