"use client";

import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { startRegistration } from "@simplewebauthn/browser";
import Link from "next/link";
import { useEffect, useState } from "react";
import { AuthStepError, authStep, passkeyErrorText } from "@/components/console/auth-api";
import { useAuthStep } from "@/components/console/use-auth-step";
import { QrCode } from "@/components/signup/qr-code";
import { fmtTime } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { useFieldChecks } from "@/components/ui/form-field";
import { FormAlert } from "@/components/ui/states";
import { roleLabel } from "@/lib/roles";

type Invitation = { organizationName: string; email: string; role: string; expiresAt: string };
type Totp = { secret: string; uri: string };

const MIN_PASSWORD = 12;

/** The secret in groups of four, as authenticator apps show it. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, "$1 ").trim();

/**
 * Accepting an invitation: the organization and address it is for, then a passkey (recommended)
 * or a password of the member's own with an authenticator app, confirmed by one code. The link
 * works once; the member then signs in with what they set up.
 */
export function InviteAccept({ token }: { token: string }) {
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [mode, setMode] = useState<"choose" | "password" | "done">("choose");
  const [totp, setTotp] = useState<Totp | null>(null);
  const { busy, error, setError, guarded } = useAuthStep((err) => (err instanceof AuthStepError ? err.message : passkeyErrorText(err)));
  const [fields, setFields] = useState({ password: "", confirm: "", code: "" });
  const checks = useFieldChecks();

  useEffect(() => {
    authStep<Invitation>("/api/auth/invitation", { step: "view", token }).then(setInvitation, (err: unknown) =>
      setLoadError(err instanceof Error ? err.message : "This invitation could not be opened."),
    );
  }, [token]);

  const onPasskey = () =>
    guarded(async () => {
      const { challengeId, options } = await authStep<{ challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }>(
        "/api/auth/invitation",
        { step: "passkey-options", token },
      );
      let response: unknown;
      try {
        response = await startRegistration({ optionsJSON: options });
      } catch (err) {
        setError(passkeyErrorText(err));
        return;
      }
      await authStep("/api/auth/invitation", { step: "passkey", token, challengeId, response });
      setMode("done");
    });

  const onPasswordMode = () =>
    guarded(async () => {
      setTotp(await authStep<Totp>("/api/auth/invitation", { step: "totp", token }));
      setMode("password");
    });

  function onSave(e: React.FormEvent) {
    e.preventDefault();
    const code = fields.code.replace(/\s/g, "");
    if (
      !checks.require([
        ["new-password", fields.password.length >= MIN_PASSWORD, `Use at least ${MIN_PASSWORD} characters.`],
        ["confirm-password", fields.confirm === fields.password, "The two passwords differ."],
        ["totp-code", /^\d{6}$/.test(code), "Enter the 6-digit code your authenticator app shows."],
      ])
    )
      return;
    void guarded(async () => {
      await authStep("/api/auth/invitation", { step: "password", token, password: fields.password, code });
      setMode("done");
    });
  }

  /** A field's words go as soon as it is edited. */
  const edit = (key: keyof typeof fields, field: string, value: string) => {
    setFields((f) => ({ ...f, [key]: value }));
    checks.edited(field);
  };

  if (loadError) {
    return (
      <div role="alert" className="card mt-6 space-y-3 text-sm">
        <p className="font-medium text-red-800">{loadError}</p>
        <Link href="/console/sign-in" className="btn-secondary">
          Go to sign-in
        </Link>
      </div>
    );
  }
  if (!invitation) {
    return (
      <p role="status" className="card mt-6 text-sm text-slate-600">
        Opening your invitation…
      </p>
    );
  }

  const alert = <FormAlert error={error} />;
  const [passwordField, confirmField, codeField] = [
    checks.field("new-password"),
    checks.field("confirm-password"),
    checks.field("totp-code"),
  ];

  return (
    <div className="card mt-6 space-y-5">
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-500">Organization</dt>
        <dd className="font-medium">{invitation.organizationName}</dd>
        <dt className="text-slate-500">Email</dt>
        <dd className="truncate font-medium">{invitation.email}</dd>
        <dt className="text-slate-500">Role</dt>
        <dd>{roleLabel(invitation.role as Parameters<typeof roleLabel>[0])}</dd>
        <dt className="text-slate-500">Link expires</dt>
        <dd>{fmtTime(invitation.expiresAt)}</dd>
      </dl>

      {mode === "choose" && (
        <div className="space-y-3">
          <p className="text-sm text-slate-600">
            Choose how you will sign in. A passkey is the strongest: it lives on this device or your password manager, and it cannot be
            phished.
          </p>
          <button type="button" className="btn-primary w-full" disabled={busy} onClick={() => void onPasskey()}>
            {busy ? "Waiting for your passkey…" : "Set up a passkey"}
          </button>
          <button type="button" className="btn-secondary w-full" disabled={busy} onClick={() => void onPasswordMode()}>
            Use a password and authenticator app instead
          </button>
          {alert}
        </div>
      )}

      {mode === "password" && totp && (
        <form onSubmit={onSave} className="space-y-4" noValidate>
          <section aria-labelledby="totp-heading" className="space-y-3 rounded-md border border-slate-200 p-3">
            <h2 id="totp-heading" className="text-sm font-semibold">
              1. Add this account to your authenticator app
            </h2>
            <div className="flex flex-col items-center gap-3 sm:flex-row sm:items-start">
              <QrCode value={totp.uri} label="QR code of the authenticator setup link" className="h-36 w-36" />
              <div className="min-w-0 flex-1 space-y-2 text-sm">
                <p className="text-slate-600">Scan the code, or type this key into the app:</p>
                <div className="flex items-center gap-2">
                  <code data-testid="totp-secret" className="min-w-0 flex-1 break-words rounded bg-slate-50 px-2 py-1 font-mono text-xs">
                    {grouped(totp.secret)}
                  </code>
                  <CopyButton value={totp.secret} label="Copy key" />
                </div>
                <details className="text-xs text-slate-500">
                  <summary className="cursor-pointer">Setup link as text</summary>
                  <p className="mt-1 break-all font-mono">{totp.uri}</p>
                </details>
              </div>
            </div>
          </section>
          <div>
            <label htmlFor="new-password" className="label">
              2. Choose a password
            </label>
            <input
              id="new-password"
              type="password"
              className="field"
              autoComplete="new-password"
              maxLength={200}
              value={fields.password}
              onChange={(e) => edit("password", "new-password", e.target.value)}
              {...passwordField.attrs}
            />
            <p className="mt-1 text-xs text-slate-500" aria-live="polite">
              {fields.password.length < MIN_PASSWORD
                ? `${fields.password.length} of at least ${MIN_PASSWORD} characters`
                : `${fields.password.length} characters`}
            </p>
            {passwordField.line}
          </div>
          <div>
            <label htmlFor="confirm-password" className="label">
              Repeat the password
            </label>
            <input
              id="confirm-password"
              type="password"
              className="field"
              autoComplete="new-password"
              maxLength={200}
              value={fields.confirm}
              onChange={(e) => edit("confirm", "confirm-password", e.target.value)}
              {...confirmField.attrs}
            />
            {confirmField.line}
          </div>
          <div>
            <label htmlFor="totp-code" className="label">
              3. The code your app shows now
            </label>
            <input
              id="totp-code"
              className="field font-mono tracking-[0.3em]"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={7}
              value={fields.code}
              onChange={(e) => edit("code", "totp-code", e.target.value)}
              {...codeField.attrs}
            />
            {codeField.line}
          </div>
          {alert}
          <button type="submit" className="btn-primary w-full" disabled={busy}>
            {busy ? "Saving…" : "Save and finish"}
          </button>
          <button type="button" className="btn-secondary w-full" disabled={busy} onClick={() => setMode("choose")}>
            Back
          </button>
        </form>
      )}

      {mode === "done" && (
        <div role="status" className="space-y-3">
          <p className="rounded-md bg-emerald-50 p-3 text-sm text-emerald-900">
            Your sign-in is set up. This link no longer works; from now on sign in with your email and what you just set up.
          </p>
          <Link href={`/console/sign-in?accepted=1&email=${encodeURIComponent(invitation.email)}`} className="btn-primary w-full">
            Go to sign-in
          </Link>
        </div>
      )}
    </div>
  );
}
