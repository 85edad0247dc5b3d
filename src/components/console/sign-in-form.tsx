"use client";

import { useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";

type Step = { kind: "password" } | { kind: "code"; challengeId: string };

const FAILED = "Sign-in failed. Check the organization ID, email, password and code.";

/**
 * Two steps: organization ID, email and console password; then, once the organization has members,
 * the 6-digit code emailed to that member. Every failure reads the same, whichever part was wrong.
 */
export function SignInForm() {
  const params = useSearchParams();
  const [step, setStep] = useState<Step>({ kind: "password" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState({ organizationId: "", email: "", password: "", code: "" });
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [k]: e.target.value });

  async function finish(challengeId?: string) {
    const res = await signIn("console", {
      redirect: false,
      organizationId: form.organizationId.trim(),
      email: form.email.trim(),
      password: form.password,
      challengeId: challengeId ?? "",
      code: form.code.trim(),
    });
    if (res?.ok && !res.error) {
      window.location.assign("/console");
      return;
    }
    setError(res?.error === "rate_limited" ? "Too many sign-in attempts. Wait a few minutes and try again." : FAILED);
  }

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (step.kind === "code") return await finish(step.challengeId);
      const res = await fetch("/api/auth/console-code", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ organizationId: form.organizationId.trim(), email: form.email.trim(), password: form.password }),
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) {
        setError(res.status === 429 ? "Too many sign-in attempts. Wait a few minutes and try again." : FAILED);
        return;
      }
      if (body.codeRequired) setStep({ kind: "code", challengeId: body.challengeId });
      else await finish();
    } catch {
      setError("The console could not be reached. Check your connection and try again.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="card mt-6 space-y-4" noValidate>
      {params.get("ended") && step.kind === "password" && !error && (
        <p role="status" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900">
          Your session has ended. Sign in again.
        </p>
      )}
      {step.kind === "password" ? (
        <>
          <div>
            <label htmlFor="organizationId" className="label">
              Organization ID
            </label>
            <input
              id="organizationId"
              className="field font-mono"
              autoComplete="organization"
              required
              value={form.organizationId}
              onChange={set("organizationId")}
            />
          </div>
          <div>
            <label htmlFor="email" className="label">
              Email
            </label>
            <input id="email" type="email" className="field" autoComplete="username" required value={form.email} onChange={set("email")} />
          </div>
          <div>
            <label htmlFor="password" className="label">
              Console password
            </label>
            <input
              id="password"
              type="password"
              className="field"
              autoComplete="current-password"
              required
              value={form.password}
              onChange={set("password")}
            />
          </div>
        </>
      ) : (
        <div>
          <p className="mb-3 text-sm text-slate-600">
            We emailed a 6-digit code to <strong>{form.email}</strong>. It is valid for 10 minutes.
          </p>
          <label htmlFor="code" className="label">
            Sign-in code
          </label>
          <input
            id="code"
            className="field font-mono tracking-[0.4em]"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            // biome-ignore lint/a11y/noAutofocus: the field appears because the member just asked for the code; focus goes where they type next
            autoFocus
            value={form.code}
            onChange={set("code")}
          />
        </div>
      )}
      {error && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-800">
          {error}
        </p>
      )}
      <button type="submit" className="btn-primary w-full" disabled={busy}>
        {busy ? "Checking…" : step.kind === "code" ? "Verify and sign in" : "Continue"}
      </button>
      {step.kind === "code" && (
        <button
          type="button"
          className="btn-secondary w-full"
          onClick={() => {
            setStep({ kind: "password" });
            setForm({ ...form, code: "" });
            setError(null);
          }}
        >
          Start again
        </button>
      )}
    </form>
  );
}
