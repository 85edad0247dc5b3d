"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { signOutNow } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { Confirm } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Session = RouterOutputs["session"]["list"]["sessions"][number];

const METHOD: Record<Session["method"], string> = {
  passkey: "Passkey",
  password_totp: "Password and authenticator code",
  org_password: "Organization password",
};

/** "Chrome on macOS" from a user agent; the whole string stays on hover. */
function device(ua: string | null) {
  if (!ua) return "Unknown device";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : "A browser";
  const os = /iPhone|iPad/.test(ua)
    ? "iOS"
    : /Android/.test(ua)
      ? "Android"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : "another system";
  return `${browser} on ${os}`;
}

export default function SecurityPage() {
  return (
    <>
      <PageHeader title="Security" description="How you sign in to this console, and where you are signed in now." />
      <div className="space-y-6">
        <OwnSignIn />
        <Sessions />
      </div>
    </>
  );
}

const LAST_ONE = "This is your only way to sign in: add another before you remove it.";

/** One of the member's own ways to sign in, with its Remove (confirmed; never the last one). */
function CredentialRow(props: {
  title: string;
  detail: string;
  removable: boolean;
  onlyOne: boolean;
  confirmTitle: string;
  confirmText: string;
  confirmLabel: string;
  onRemove: () => void;
}) {
  return (
    <li className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0">
        <p className="font-medium">{props.title}</p>
        <p className="text-slate-600">{props.detail}</p>
      </div>
      {props.removable && (
        <Confirm
          trigger={
            <button
              type="button"
              className="btn-secondary shrink-0 self-start sm:self-auto"
              disabled={props.onlyOne}
              title={props.onlyOne ? LAST_ONE : undefined}
            >
              Remove
            </button>
          }
          title={props.confirmTitle}
          description={props.confirmText}
          confirmLabel={props.confirmLabel}
          onConfirm={props.onRemove}
        />
      )}
    </li>
  );
}

function OwnSignIn() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const client = useTRPCClient();
  const status = useQuery(trpc.session.credentials.queryOptions());
  const own = useQuery(trpc.session.ownCredentials.queryOptions());
  // Once it answered, the page is leaving for the setup link: the button stays disabled until it has.
  const setUp = useSubmission(client.session.setUpOwnCredentials, {
    onSuccess: ({ url }) => window.location.assign(url),
    onError: (err) => toast({ tone: "error", title: "Setup could not start", body: err.message }),
  });
  const remove = useSubmission(client.session.removeCredential, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Removed" });
      void qc.invalidateQueries({ queryKey: trpc.session.credentials.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.session.ownCredentials.queryKey() });
    },
    onError: (err) => toast({ tone: "error", title: "Not removed", body: err.message }),
  });
  const leaving = setUp.isPending || setUp.data !== undefined;
  const s = status.data;
  const list = own.data;
  const held = list ? list.passkeys.length + (list.password ? 1 : 0) : 0;
  // Changing an existing sign-in needs a session opened with it, never with the shared password.
  const mayChange = !!s?.signedInWithOwnCredentials;
  return (
    <section aria-labelledby="own-heading" className="card space-y-3">
      <h2 id="own-heading" className="text-lg font-semibold">
        Your sign-in
      </h2>
      {(status.isLoading || own.isLoading) && <LoadingRows rows={2} />}
      {status.error && <ErrorState error={status.error} onRetry={() => void status.refetch()} />}
      {s && list && (
        <>
          <p className="text-sm text-slate-600">
            This session was opened with{" "}
            <strong>{s.signedInWithOwnCredentials ? "your own sign-in" : "the organization's shared console password"}</strong>.
          </p>
          {held > 0 && (
            <ul className="divide-y divide-slate-100 text-sm" aria-label="Your ways to sign in">
              {list.passkeys.map((p, i) => (
                <CredentialRow
                  key={p.id}
                  title={list.passkeys.length > 1 ? `Passkey ${i + 1}` : "Passkey"}
                  detail={`Added ${fmtTime(p.createdAt)} · ${p.lastUsedAt ? `last used ${fmtTime(p.lastUsedAt)}` : "not used yet"}`}
                  removable={mayChange}
                  onlyOne={held <= 1}
                  confirmTitle="Remove this passkey?"
                  confirmText={`Passkey added ${fmtTime(p.createdAt)} no longer signs you in. Your other ways to sign in stay.`}
                  confirmLabel="Remove passkey"
                  onRemove={() => remove.submit({ passkeyId: p.id })}
                />
              ))}
              {list.password && (
                <CredentialRow
                  title="Password and authenticator app"
                  detail="Your own password, with a code from your authenticator app."
                  removable={mayChange}
                  onlyOne={held <= 1}
                  confirmTitle="Remove your password and authenticator app?"
                  confirmText="They no longer sign you in. Your passkeys stay."
                  confirmLabel="Remove password"
                  onRemove={() => remove.submit({ password: true })}
                />
              )}
            </ul>
          )}
          {held > 0 && held <= 1 && mayChange && <p className="text-sm text-slate-600">{LAST_ONE}</p>}
          {held === 0 && (
            <div className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
              <p>
                You still sign in with the organization's shared password. Set up a passkey or a password with an authenticator app of your
                own: the shared password then stops working for you, and you can approve AML clears (four-eyes needs each person's own
                sign-in).
              </p>
              <button type="button" className="btn-primary mt-3" disabled={leaving} onClick={() => setUp.submit()}>
                {leaving ? "Opening…" : "Set up my own sign-in"}
              </button>
            </div>
          )}
          {held > 0 && mayChange && (
            <button type="button" className="btn-secondary" disabled={leaving} onClick={() => setUp.submit()}>
              {leaving ? "Opening…" : "Add a passkey or an authenticator app"}
            </button>
          )}
          {held > 0 && !mayChange && (
            <p className="text-sm text-slate-600">To add or remove a way to sign in, sign in with your own passkey or password.</p>
          )}
        </>
      )}
    </section>
  );
}

function Sessions() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const client = useTRPCClient();
  const list = useQuery(trpc.session.list.queryOptions());
  const revoke = useSubmission(client.session.revoke, {
    onSuccess: (r) => {
      if (r.current) {
        void signOutNow("ended");
        return;
      }
      toast({ tone: "ok", title: "Session ended" });
      void qc.invalidateQueries({ queryKey: trpc.session.list.queryKey() });
    },
    onError: (err) => toast({ tone: "error", title: "The session was not ended", body: err.message }),
  });
  return (
    <section aria-labelledby="sessions-heading" className="card space-y-3">
      <div>
        <h2 id="sessions-heading" className="text-lg font-semibold">
          Sessions
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          Every browser signed in as you. End any you do not recognise; it is refused at its next request.
        </p>
      </div>
      {list.isLoading && <LoadingRows rows={3} />}
      {list.error && <ErrorState error={list.error} onRetry={() => void list.refetch()} />}
      <ul className="divide-y divide-slate-100" aria-label="Your sessions">
        {list.data?.sessions.map((s) => (
          <li key={s.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0 text-sm">
              <p className="flex flex-wrap items-center gap-2 font-medium">
                <span title={s.userAgent ?? undefined}>{device(s.userAgent)}</span>
                {s.current && <Badge tone="green">This session</Badge>}
              </p>
              <p className="text-slate-600">
                {METHOD[s.method]} · signed in {fmtTime(s.createdAt)} · last seen {fmtTime(s.lastSeenAt)}
                {s.clientIp ? ` · ${s.clientIp}` : ""}
              </p>
            </div>
            <Confirm
              trigger={
                <button type="button" className="btn-secondary shrink-0 self-start sm:self-auto">
                  {s.current ? "Sign out here" : "End session"}
                </button>
              }
              title={s.current ? "Sign out of this browser?" : "End this session?"}
              description={
                s.current
                  ? "You are signed out of this browser now."
                  : `${device(s.userAgent)}, last seen ${fmtTime(s.lastSeenAt)}, is signed out at its next request.`
              }
              confirmLabel="End session"
              onConfirm={() => revoke.submit({ sessionId: s.id })}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
