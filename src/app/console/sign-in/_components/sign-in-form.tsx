"use client";

import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { startAuthentication } from "@simplewebauthn/browser";
import { useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { AuthStepError, authStep, passkeyErrorText, tooManyAttempts } from "@/components/console/auth-api";
import { useAuthStep } from "@/components/console/use-auth-step";
import { FormAlert } from "@/components/ui/states";

type Step =
  | { kind: "email" }
  | { kind: "method" }
  | { kind: "password" }
  | { kind: "organization"; ticket: string; organizations: { id: string; name: string }[] }
  | { kind: "shared" }
  | { kind: "code"; challengeId: string };

const FAILED = "Sign-in failed. Check your email, password and authenticator code, or try your passkey again.";
const SHARED_FAILED = "Sign-in failed. Check the organization ID, email, password and code.";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** next-auth hands a refused sign-in back as an error string; ours is "rate_limited:<seconds>". */
function signInError(error: string | null | undefined, fallback: string) {
  if (error?.startsWith("rate_limited")) {
    const sec = Number.parseInt(error.split(":")[1] ?? "", 10);
    return tooManyAttempts(Number.isFinite(sec) && sec > 0 ? sec : null);
  }
  return fallback;
}

/**
 * Email first, then the member's own credentials: a passkey (usernameless: the passkey names the
 * member and so the organization) or their password and a code from their authenticator app. The
 * email step asks the server nothing, so the form never tells whether an address is a member.
 * The organization's shared password stays for the first sign-in of a new organization and for
 * members from before own credentials who have not set them up yet.
 */
export function SignInForm() {
  const params = useSearchParams();
  const [step, setStep] = useState<Step>({ kind: "email" });
  const { busy, error, setError, guarded } = useAuthStep((err) =>
    err instanceof AuthStepError ? err.message : "The console could not be reached. Check your connection and try again.",
  );
  const [fieldError, setFieldError] = useState<{ field: string; text: string } | null>(null);
  const [form, setForm] = useState({
    email: params.get("email") ?? "",
    password: "",
    code: "",
    organizationId: "",
    sharedPassword: "",
    emailCode: "",
  });
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setForm({ ...form, [k]: e.target.value });
    if (fieldError?.field === k) setFieldError(null);
  };

  const go = (next: Step) => {
    setError(null);
    setFieldError(null);
    setStep(next);
  };

  async function finish(provider: string, fields: Record<string, string>, fallback: string) {
    const res = await signIn(provider, { redirect: false, ...fields });
    if (res?.ok && !res.error) {
      window.location.assign("/console");
      return;
    }
    setError(signInError(res?.error, fallback));
  }

  const require = (checks: [string, boolean, string][]) => {
    for (const [field, ok, text] of checks) {
      if (!ok) {
        setFieldError({ field, text });
        document.getElementById(field)?.focus();
        return false;
      }
    }
    setFieldError(null);
    return true;
  };

  function onEmail(e: React.FormEvent) {
    e.preventDefault();
    if (!require([["email", EMAIL.test(form.email.trim()), "Enter your work email address, like name@company.com."]])) return;
    go({ kind: "method" });
  }

  const onPasskey = () =>
    guarded(async () => {
      const { challengeId, options } = await authStep<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }>(
        "/api/auth/passkey-options",
        {},
      );
      let response: unknown;
      try {
        response = await startAuthentication({ optionsJSON: options });
      } catch (err) {
        setError(passkeyErrorText(err));
        return;
      }
      await finish("passkey", { challengeId, response: JSON.stringify(response) }, FAILED);
    });

  function onPassword(e: React.FormEvent) {
    e.preventDefault();
    const code = form.code.replace(/\s/g, "");
    if (
      !require([
        ["password", form.password.length > 0, "Enter your password."],
        ["code", /^\d{6}$/.test(code), "Enter the 6-digit code your authenticator app shows."],
      ])
    )
      return;
    void guarded(async () => {
      const started = await authStep<{ ticket: string; organizations: { id: string; name: string }[] }>("/api/auth/member-sign-in", {
        email: form.email.trim(),
        password: form.password,
        code,
      });
      if (started.organizations.length === 1) {
        await finish("ticket", { ticket: started.ticket, organizationId: started.organizations[0]!.id }, FAILED);
      } else go({ kind: "organization", ...started });
    });
  }

  const onOrganization = (ticket: string, organizationId: string) =>
    guarded(() => finish("ticket", { ticket, organizationId }, "That sign-in has expired. Start again."));

  function onShared(e: React.FormEvent) {
    e.preventDefault();
    if (
      !require([
        ["organizationId", form.organizationId.trim().length > 0, "Enter your organization ID."],
        ["sharedPassword", form.sharedPassword.length > 0, "Enter the organization's console password."],
      ])
    )
      return;
    void guarded(async () => {
      const shared = { organizationId: form.organizationId.trim(), email: form.email.trim(), password: form.sharedPassword };
      let body: { codeRequired: boolean; challengeId?: string };
      try {
        body = await authStep("/api/auth/console-code", shared);
      } catch (err) {
        setError(err instanceof AuthStepError && err.status === 429 ? err.message : SHARED_FAILED);
        return;
      }
      if (body.codeRequired && body.challengeId) go({ kind: "code", challengeId: body.challengeId });
      else await finish("console", { ...shared, challengeId: "", code: "" }, SHARED_FAILED);
    });
  }

  function onCode(e: React.FormEvent, challengeId: string) {
    e.preventDefault();
    if (!require([["emailCode", /^\d{6}$/.test(form.emailCode.trim()), "Enter the 6-digit code from the email."]])) return;
    void guarded(() =>
      finish(
        "console",
        {
          organizationId: form.organizationId.trim(),
          email: form.email.trim(),
          password: form.sharedPassword,
          challengeId,
          code: form.emailCode.trim(),
        },
        SHARED_FAILED,
      ),
    );
  }

  const hint = (field: string) =>
    fieldError?.field === field ? (
      <p id={`${field}-error`} className="mt-1 text-sm text-red-700">
        {fieldError.text}
      </p>
    ) : null;
  const invalid = (field: string) =>
    fieldError?.field === field ? { "aria-invalid": true as const, "aria-describedby": `${field}-error` } : {};

  const who = (
    <div className="flex items-center justify-between gap-3 rounded-md bg-slate-50 px-3 py-2 text-sm">
      <span className="min-w-0 truncate">
        <span className="sr-only">Signing in as </span>
        <strong className="font-medium">{form.email.trim()}</strong>
      </span>
      <button type="button" className="shrink-0 text-indigo-700 underline-offset-2 hover:underline" onClick={() => go({ kind: "email" })}>
        Change
      </button>
    </div>
  );

  const alert = <FormAlert error={error} />;

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

      {step.kind === "email" && (
        <form onSubmit={onEmail} className="space-y-4" noValidate>
          <div>
            <label htmlFor="email" className="label">
              Work email
            </label>
            <input
              id="email"
              type="email"
              className="field"
              autoComplete="username webauthn"
              value={form.email}
              onChange={set("email")}
              {...invalid("email")}
            />
            {hint("email")}
          </div>
          <button type="submit" className="btn-primary w-full">
            Continue
          </button>
        </form>
      )}

      {step.kind === "method" && (
        <div className="space-y-3">
          {who}
          <button type="button" className="btn-primary w-full" disabled={busy} onClick={() => void onPasskey()}>
            {busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
          </button>
          <button type="button" className="btn-secondary w-full" disabled={busy} onClick={() => go({ kind: "password" })}>
            Use password and authenticator code
          </button>
          {alert}
          <div className="border-t border-slate-100 pt-3 text-sm text-slate-600">
            <p>New organization, or a member who has not set up their own sign-in yet?</p>
            <button
              type="button"
              className="mt-1 text-indigo-700 underline-offset-2 hover:underline"
              disabled={busy}
              onClick={() => go({ kind: "shared" })}
            >
              Sign in with the organization's console password
            </button>
          </div>
        </div>
      )}

      {step.kind === "password" && (
        <form onSubmit={onPassword} className="space-y-4" noValidate>
          {who}
          <div>
            <label htmlFor="password" className="label">
              Password
            </label>
            <input
              id="password"
              type="password"
              className="field"
              autoComplete="current-password"
              value={form.password}
              onChange={set("password")}
              {...invalid("password")}
            />
            {hint("password")}
          </div>
          <div>
            <label htmlFor="code" className="label">
              Authenticator code
            </label>
            <input
              id="code"
              className="field font-mono tracking-[0.3em]"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={7}
              value={form.code}
              onChange={set("code")}
              {...invalid("code")}
            />
            {hint("code")}
          </div>
          {alert}
          <button type="submit" className="btn-primary w-full" disabled={busy}>
            {busy ? "Checking…" : "Sign in"}
          </button>
          <button type="button" className="btn-secondary w-full" onClick={() => go({ kind: "method" })}>
            Back
          </button>
        </form>
      )}

      {step.kind === "organization" && (
        <div className="space-y-3">
          {who}
          <p className="text-sm text-slate-600">You are a member of several organizations. Choose one for this session.</p>
          <ul className="space-y-2">
            {step.organizations.map((o) => (
              <li key={o.id}>
                <button
                  type="button"
                  className="btn-secondary w-full justify-start"
                  disabled={busy}
                  onClick={() => void onOrganization(step.ticket, o.id)}
                >
                  {o.name}
                </button>
              </li>
            ))}
          </ul>
          {alert}
        </div>
      )}

      {step.kind === "shared" && (
        <form onSubmit={onShared} className="space-y-4" noValidate>
          {who}
          <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900">
            The organization's shared password is for the first sign-in of a new organization, and for members from before own sign-ins who
            have not set theirs up. Members then get a code by email. Approving an AML clear needs your own sign-in.
          </p>
          <div>
            <label htmlFor="organizationId" className="label">
              Organization ID
            </label>
            <input
              id="organizationId"
              className="field font-mono"
              autoComplete="organization"
              value={form.organizationId}
              onChange={set("organizationId")}
              {...invalid("organizationId")}
            />
            {hint("organizationId")}
          </div>
          <div>
            <label htmlFor="sharedPassword" className="label">
              Console password
            </label>
            <input
              id="sharedPassword"
              type="password"
              className="field"
              autoComplete="current-password"
              value={form.sharedPassword}
              onChange={set("sharedPassword")}
              {...invalid("sharedPassword")}
            />
            {hint("sharedPassword")}
          </div>
          {alert}
          <button type="submit" className="btn-primary w-full" disabled={busy}>
            {busy ? "Checking…" : "Continue"}
          </button>
          <button type="button" className="btn-secondary w-full" onClick={() => go({ kind: "method" })}>
            Back
          </button>
        </form>
      )}

      {step.kind === "code" && (
        <form onSubmit={(e) => onCode(e, step.challengeId)} className="space-y-4" noValidate>
          <p className="text-sm text-slate-600">
            We emailed a 6-digit code to <strong>{form.email.trim()}</strong>. It is valid for 10 minutes.
          </p>
          <div>
            <label htmlFor="emailCode" className="label">
              Sign-in code
            </label>
            <input
              id="emailCode"
              className="field font-mono tracking-[0.4em]"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              // biome-ignore lint/a11y/noAutofocus: the field appears because the member just asked for the code; focus goes where they type next
              autoFocus
              value={form.emailCode}
              onChange={set("emailCode")}
              {...invalid("emailCode")}
            />
            {hint("emailCode")}
          </div>
          {alert}
          <button type="submit" className="btn-primary w-full" disabled={busy}>
            {busy ? "Checking…" : "Verify and sign in"}
          </button>
          <button type="button" className="btn-secondary w-full" onClick={() => go({ kind: "shared" })}>
            Start again
          </button>
        </form>
      )}
    </div>
  );
}
