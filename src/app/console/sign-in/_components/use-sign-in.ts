"use client";

import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { startAuthentication } from "@simplewebauthn/browser";
import { useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { AuthStepError, authStep, passkeyErrorText, tooManyAttempts } from "@/components/console/auth-api";
import { useAuthStep } from "@/components/console/use-auth-step";
import { useFieldChecks } from "@/components/ui/form-field";

type Organization = { id: string; name: string };

/** The steps of sign-in; each has its own file beside this one. */
export type Step =
  | { kind: "email" }
  | { kind: "method" }
  | { kind: "password" }
  | { kind: "organization"; ticket: string; organizations: Organization[] }
  | { kind: "shared" }
  | { kind: "code"; challengeId: string; devCode?: string };

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
 * The sign-in state machine: which step shows, what the member typed so far, and what each step
 * does when it is sent. Email first (nothing is asked of the server), then a passkey, or the
 * member's password and authenticator code (and the organization when they are in several), or
 * the organization's shared password and the emailed code.
 */
export function useSignIn() {
  const params = useSearchParams();
  const [step, setStep] = useState<Step>({ kind: "email" });
  const { busy, error, setError, guarded } = useAuthStep((err) =>
    err instanceof AuthStepError ? err.message : "The console could not be reached. Check your connection and try again.",
  );
  const checks = useFieldChecks();
  const [form, setForm] = useState({
    email: params.get("email") ?? "",
    password: "",
    code: "",
    organizationId: params.get("organization") ?? "",
    sharedPassword: "",
    emailCode: "",
  });
  /** Each field's id is its key in `form`. */
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setForm({ ...form, [k]: e.target.value });
    checks.edited(k);
  };

  const go = (next: Step) => {
    setError(null);
    checks.clear();
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

  function onEmail(e: React.FormEvent) {
    e.preventDefault();
    if (!checks.require([["email", EMAIL.test(form.email.trim()), "Enter your work email address, like name@company.com."]])) return;
    // Sent here from a new organization's signup (?organization=…): its first sign-in is the console password.
    go(params.get("organization") ? { kind: "shared" } : { kind: "method" });
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
      !checks.require([
        ["password", form.password.length > 0, "Enter your password."],
        ["code", /^\d{6}$/.test(code), "Enter the 6-digit code your authenticator app shows."],
      ])
    )
      return;
    void guarded(async () => {
      const started = await authStep<{ ticket: string; organizations: Organization[] }>("/api/auth/member-sign-in", {
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
      !checks.require([
        ["organizationId", form.organizationId.trim().length > 0, "Enter your organization ID."],
        ["sharedPassword", form.sharedPassword.length > 0, "Enter the organization's console password."],
      ])
    )
      return;
    void guarded(async () => {
      const shared = { organizationId: form.organizationId.trim(), email: form.email.trim(), password: form.sharedPassword };
      let body: { codeRequired: boolean; challengeId?: string; devCode?: string };
      try {
        body = await authStep("/api/auth/console-code", shared);
      } catch (err) {
        setError(err instanceof AuthStepError && err.status === 429 ? err.message : SHARED_FAILED);
        return;
      }
      if (body.codeRequired && body.challengeId) go({ kind: "code", challengeId: body.challengeId, devCode: body.devCode });
      else await finish("console", { ...shared, challengeId: "", code: "" }, SHARED_FAILED);
    });
  }

  function onCode(e: React.FormEvent, challengeId: string) {
    e.preventDefault();
    if (!checks.require([["emailCode", /^\d{6}$/.test(form.emailCode.trim()), "Enter the 6-digit code from the email."]])) return;
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

  return {
    params,
    step,
    form,
    set,
    field: checks.field,
    busy,
    error,
    go,
    onEmail,
    onPasskey,
    onPassword,
    onOrganization,
    onShared,
    onCode,
  };
}

/** What a step's component gets: the whole machine, of which it uses its own part. */
export type SignIn = ReturnType<typeof useSignIn>;
