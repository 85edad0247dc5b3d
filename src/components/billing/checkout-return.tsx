"use client";

import { useEffect, useRef, useState } from "react";
import { billingCall, type CheckoutStatus, checkoutProof, forgetCheckoutProof, statusOf } from "./checkout-api";

type Revealed = { apiKey: string; consolePassword: string; organizationId: string; warning: string };

function Secret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div>
      <p className="text-sm font-medium text-slate-700">{label}</p>
      <div className="mt-1 flex gap-2">
        <code className="flex-1 overflow-x-auto rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-sm">{value}</code>
        <button
          type="button"
          onClick={() => navigator.clipboard.writeText(value).then(() => setCopied(true))}
          className="rounded-md border border-slate-300 px-3 py-2 text-sm font-medium hover:bg-slate-50"
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}

/** Where this tab keeps the session id once it is out of the address bar (a reload still finds it). */
const RETURN_SESSION_KEY = "bi-checkout-return-session";

/**
 * The session id is the buyer's secret (docs/security.md, "Checkout keys without the email
 * proof"): it is taken out of the address bar at once, so it is not in the history, a bookmark
 * or a screenshot, and this tab keeps it for a reload. The page sends no Referer (src/proxy.ts).
 */
function useReturnSession(fromUrl: string, canceled: boolean): string | undefined {
  const [sessionId, setSessionId] = useState<string | undefined>(fromUrl || undefined);
  useEffect(() => {
    try {
      if (fromUrl) sessionStorage.setItem(RETURN_SESSION_KEY, fromUrl);
      else setSessionId(sessionStorage.getItem(RETURN_SESSION_KEY) ?? "");
    } catch {
      if (!fromUrl) setSessionId("");
    }
    if (fromUrl) window.history.replaceState(null, "", canceled ? "/billing/return?canceled=1" : "/billing/return");
  }, [fromUrl, canceled]);
  return sessionId;
}

export function CheckoutReturn({ sessionId: fromUrl, canceled }: { sessionId: string; canceled: boolean }) {
  const sessionId = useReturnSession(fromUrl, canceled);
  const [status, setStatus] = useState<CheckoutStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  // undefined until read: storage exists only in the browser, after hydration.
  const [proof, setProof] = useState<string | null | undefined>(undefined);
  // The key is shown once: a second click (a double click) must not ask again and turn the page into a 409.
  const revealing = useRef(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (sessionId) setProof(checkoutProof(sessionId));
  }, [sessionId]);

  useEffect(() => {
    if (sessionId === undefined) return;
    if (!sessionId) return setError("This page needs a checkout session.");
    let tries = 0;
    let timer: ReturnType<typeof setTimeout>;
    const poll = () =>
      statusOf(sessionId).then(
        (s) => {
          setStatus(s);
          // A card payment settles shortly after the return; poll politely for a minute.
          if (s.status === "awaiting_payment" && !canceled && ++tries < 30) timer = setTimeout(poll, 2000);
        },
        (e: Error) => setError(e.message),
      );
    void poll();
    return () => clearTimeout(timer);
  }, [sessionId, canceled]);

  async function reveal() {
    if (!sessionId || proof === undefined || revealing.current) return;
    revealing.current = true;
    setBusy(true);
    try {
      // The proof this tab kept, when it has one; without it the session id is enough in the minutes after payment.
      setRevealed(await billingCall<Revealed>("/v1/billing/checkout/reveal", { sessionId, ...(proof ? { emailProofToken: proof } : {}) }));
      forgetCheckoutProof(sessionId);
    } catch (e) {
      setError((e as Error).message);
      revealing.current = false;
      setBusy(false);
    }
  }

  if (error)
    return (
      <p role="alert" className="mt-6 rounded-md border border-red-200 bg-red-50 p-4 text-red-800">
        {error}
      </p>
    );
  if (!status) return <p className="mt-6 text-slate-500">Checking your payment…</p>;
  if (revealed) {
    return (
      <section className="mt-6 space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <p role="status" className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          {revealed.warning}
        </p>
        <Secret label="API key" value={revealed.apiKey} />
        <Secret label="Console password" value={revealed.consolePassword} />
        <p className="text-sm text-slate-600">
          Organization id: <code>{revealed.organizationId}</code>
        </p>
      </section>
    );
  }
  const body =
    canceled && status.status === "awaiting_payment"
      ? "The payment was canceled. Nothing was charged."
      : status.status === "awaiting_payment"
        ? "Waiting for your payment to settle…"
        : status.status === "expired"
          ? "This checkout has expired. Start a new one."
          : status.status === "provisioned" && status.purpose === "upgrade"
            ? "Your organization is now on the new plan. Your keys stay as they were."
            : status.status === "provisioned" && !status.revealAvailable
              ? "Your organization is ready. Its key was already shown once; if it was lost, revoke it in the console and mint another."
              : status.status === "provisioned"
                ? "Your organization is ready."
                : `Status: ${status.status}`;
  return (
    <section className="mt-6 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <p data-testid="checkout-status">{body}</p>
      <p className="mt-1 text-sm text-slate-500">{status.emailMasked}</p>
      {status.status === "provisioned" && status.revealAvailable && proof !== undefined ? (
        <button
          type="button"
          onClick={reveal}
          disabled={busy}
          className="mt-6 rounded-md bg-indigo-600 px-4 py-3 font-medium text-white hover:bg-indigo-500 disabled:opacity-60"
        >
          Show my API key (once)
        </button>
      ) : null}
      {status.status === "provisioned" && status.revealAvailable && proof === null ? (
        <p data-testid="checkout-proof-missing" className="mt-4 text-sm text-slate-600">
          Your API key and console password can be shown within 15 minutes of your payment. After that, only the browser tab that started
          this checkout can show them.
        </p>
      ) : null}
    </section>
  );
}
