"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { QrCode } from "@/components/signup/qr-code";
import { WalletAppLink } from "./wallet-app-link";

type Status = "pending" | "verified" | "refused" | "declined" | "expired";
type Claim = { name: string; label: string; description: string };

type Props = {
  id: string;
  /** `verify` (our wallet credential) or `kyc_pid` (identity from the person's EU digital identity wallet). */
  kind: string;
  initialStatus: Status;
  verifier: string;
  purpose: string | null;
  claims: Claim[];
  requestUri: string;
  expiresAt: string;
};

const POLL_MS = 3000;
const STATUSES: readonly string[] = ["pending", "verified", "refused", "declined", "expired"];
const isStatus = (s: unknown): s is Status => typeof s === "string" && STATUSES.includes(s);

/** The page's words for each kind of request; anything we do not know reads as a wallet presentation. */
function wording(kind: string) {
  if (kind === "kyc_pid") {
    return {
      eyebrow: "Identity verification",
      heading: "Verify your identity with your EU digital identity wallet",
      intro: "Your EU digital identity wallet shares these details from your national identity credential, and only these.",
      qrLabel: "QR code of the identity verification request",
    };
  }
  return {
    eyebrow: "Wallet credential",
    heading: "Share from your wallet",
    intro:
      "Your wallet shares these details of your verified-person credential, and only these. If the credential was issued through another organization, sharing it here is your consent to its reuse by this one.",
    qrLabel: "QR code of the presentation request",
  };
}

const labelList = (claims: Claim[]) => claims.map((c) => c.label).join(", ");

/**
 * The interactive part of the consent page: the request as a QR code and a wallet link, Decline,
 * and the outcome, polled every 3 seconds while the wallet has not answered. A request already
 * answered when the page loads shows its outcome straight away.
 */
export function PresentationConsent({ id, kind, initialStatus, verifier, purpose, claims, requestUri, expiresAt }: Props) {
  const [status, setStatus] = useState<Status>(initialStatus);
  const [declining, setDeclining] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [expiresText, setExpiresText] = useState<string | null>(null);
  // A double click must send one request: state alone updates too late for the second click.
  const inFlight = useRef(false);
  const words = wording(kind);

  useEffect(() => {
    // The time in the person's own time zone and format, known only in the browser.
    setExpiresText(new Date(expiresAt).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }));
  }, [expiresAt]);

  useEffect(() => {
    if (status !== "pending") return;
    let stopped = false;
    const timer = window.setInterval(async () => {
      try {
        const res = await fetch(`/oid4vp/requests/${encodeURIComponent(id)}/status`, { cache: "no-store" });
        if (!res.ok) return;
        const data = (await res.json()) as { status?: unknown };
        if (!stopped && isStatus(data.status) && data.status !== "pending") setStatus(data.status);
      } catch {
        // Offline for a moment: the next tick asks again.
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      window.clearInterval(timer);
    };
  }, [id, status]);

  const decline = useCallback(async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    setDeclining(true);
    setProblem(null);
    try {
      const res = await fetch(`/oid4vp/requests/${encodeURIComponent(id)}/decline`, { method: "POST" });
      const data = (await res.json().catch(() => null)) as { status?: unknown; error?: { details?: { status?: unknown } } } | null;
      if (res.ok) setStatus("declined");
      else if (res.status === 409 && isStatus(data?.error?.details?.status)) setStatus(data.error.details.status);
      else setProblem("Your answer could not be sent. Check your connection and try again.");
    } catch {
      setProblem("Your answer could not be sent. Check your connection and try again.");
    } finally {
      inFlight.current = false;
      setDeclining(false);
    }
  }, [id]);

  const verifierName = <span className="break-words font-semibold text-slate-900">{verifier}</span>;

  return (
    <section aria-labelledby="consent-title">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">{words.eyebrow}</p>
      <h1 id="consent-title" className="mt-1 text-2xl font-bold tracking-tight sm:text-3xl">
        {words.heading}
      </h1>

      {status === "pending" ? (
        <>
          <p className="mt-3 text-slate-700" data-testid="consent-asks">
            {verifierName} asks for: {labelList(claims)}.
          </p>
          {purpose ? (
            <div className="mt-4 rounded-md border-l-4 border-indigo-300 bg-indigo-50 px-4 py-3 text-sm text-slate-800">
              <h2 className="font-semibold text-slate-900">Why they ask</h2>
              <p className="mt-1 whitespace-pre-line break-words" data-testid="consent-purpose">
                {purpose}
              </p>
            </div>
          ) : null}

          <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
            <h2 className="text-lg font-semibold">What goes to {verifier}</h2>
            <p className="mt-1 text-sm text-slate-700">{words.intro}</p>
            <ul className="mt-4 divide-y divide-slate-200 border-y border-slate-200">
              {claims.map((c) => (
                <li key={c.name} className="py-3">
                  <p className="font-medium text-slate-900">{c.label}</p>
                  {c.description ? <p className="mt-0.5 text-sm text-slate-600">{c.description}</p> : null}
                </li>
              ))}
            </ul>
            <p className="mt-4 text-sm text-slate-700">
              <strong className="font-semibold">Nothing else is shared.</strong> Your wallet shows the same list before you confirm.
            </p>
          </div>

          <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
            <div className="flex flex-col items-center gap-6 sm:flex-row sm:items-start">
              <QrCode value={requestUri} label={words.qrLabel} className="aspect-square h-auto w-full max-w-80 sm:w-80" />
              <div className="w-full min-w-0">
                <h2 className="text-lg font-semibold">Wallet on another device</h2>
                <p className="mt-1 text-sm text-slate-700">Open your wallet app and scan this code with it.</p>
                <h2 className="mt-5 text-lg font-semibold">Wallet on this device</h2>
                <p className="mt-1 text-sm text-slate-700">Your wallet app opens with the request.</p>
                <WalletAppLink href={requestUri} />
              </div>
            </div>
          </div>

          <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-sm text-slate-600">
              The request works once
              {expiresText ? (
                <>
                  {" "}
                  and expires at <time dateTime={expiresAt}>{expiresText}</time>
                </>
              ) : null}
              . This page updates when your wallet answers.
            </p>
            <button
              type="button"
              onClick={decline}
              disabled={declining}
              aria-busy={declining}
              className="inline-flex min-h-11 w-full shrink-0 items-center justify-center rounded-md border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60 sm:w-auto"
            >
              {declining ? "Declining…" : "Decline"}
            </button>
          </div>
          {problem ? (
            <p role="alert" className="mt-3 text-sm text-red-700">
              {problem}
            </p>
          ) : null}
        </>
      ) : null}

      <div role="status" aria-live="polite">
        {status === "pending" ? null : <Outcome status={status} verifier={verifier} claims={claims} />}
      </div>
    </section>
  );
}

/** The request's outcome in words: what was shared with whom, or that nothing was. */
function Outcome({ status, verifier, claims }: { status: Exclude<Status, "pending">; verifier: string; claims: Claim[] }) {
  const tone =
    status === "verified" ? "border-emerald-200 bg-emerald-50 text-emerald-950" : "border-slate-200 bg-white text-slate-800 shadow-sm";
  return (
    <div className={`mt-6 rounded-lg border p-5 sm:p-6 ${tone}`} data-testid="consent-outcome">
      {status === "verified" ? (
        <p className="break-words font-medium">
          Shared with {verifier}: {labelList(claims)}.
        </p>
      ) : status === "declined" ? (
        <p className="break-words font-medium">You declined. Nothing was shared with {verifier}.</p>
      ) : status === "refused" ? (
        <>
          <p className="font-medium">Your wallet&apos;s answer was refused.</p>
          <p className="mt-2 break-words text-sm">
            Nothing was shared with {verifier}. If you still want to share, ask {verifier} for a new request.
          </p>
        </>
      ) : (
        <>
          <p className="font-medium">This request has expired.</p>
          <p className="mt-2 break-words text-sm">Nothing was shared. If you still want to share, ask {verifier} for a new request.</p>
        </>
      )}
      <p className="mt-3 text-sm opacity-80">You can close this page.</p>
    </div>
  );
}
