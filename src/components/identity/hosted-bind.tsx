"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { OtherAccountError, type ProofChallenge, signBindProof, type WalletChain } from "./bind-wallet";

type View = {
  status: "open" | "bound" | "expired";
  organization: { name: string };
  account: { did: string; name: string; chain: string };
  person: { did: string; kycLevel: string; verifiedAt: string | null; country: string | null };
  chain: WalletChain;
  sandboxWallet: boolean;
  expiresAt: string;
  redirectTo: string | null;
};
type Confirmed = { bound: true; accountDid: string; bindingVcHash: string; redirectTo: string | null };
type ApiError = { code?: string; message?: string; details?: { reason?: string } | null };

type PageState =
  | { kind: "loading" }
  | { kind: "invalid" }
  | { kind: "unavailable" }
  | { kind: "ready"; view: View }
  | { kind: "bound"; view: View; redirectTo: string | null; justNow: boolean };

/** Refusals in the words of someone holding a wallet, not a developer. */
const REASONS: Record<string, string> = {
  threshold_not_met:
    "Your wallet signed with a key that does not control this account's active permission (or not enough of its keys). Choose the account's own key in your wallet and try again.",
  other_account: "Your wallet signed for another account. Choose the account named above in your wallet and try again.",
  wrong_chain: "Your wallet signed for another chain. Switch your wallet to the chain named above and try again.",
  expired: "The signature took too long and its request expired. Try again.",
  nonce_expired: "The request to sign expired before it came back. Try again.",
  session_expired: "This link has expired. Go back to the app that sent you and ask for a new one.",
  already_bound: "This account is already linked to an identity.",
  person_not_approved: "The identity this link is for is not verified (any more). Go back to the app that sent you.",
  account_suspended: "This account is suspended. Contact the app that sent you.",
};

class Refused extends Error {}

function refusalText(err: ApiError | undefined): string {
  const reason = err?.details?.reason;
  if (reason && REASONS[reason]) return REASONS[reason];
  return err?.message ?? "Something went wrong. Try again.";
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw Object.assign(new Refused(refusalText(data?.error)), { status: res.status, error: data?.error as ApiError });
  return data as T;
}

const chainName = (chain: string) => (chain === "sandbox" ? "the sandbox test chain" : `the ${chain.toUpperCase()} chain`);

function countryName(code: string | null): string | null {
  if (!code) return null;
  try {
    return new Intl.DisplayNames(undefined, { type: "region" }).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** "basic-kyc" → "basic KYC". */
const levelText = (level: string) =>
  level
    .replace(/-?kyc$/i, " KYC")
    .replace(/-/g, " ")
    .trim();

const dateText = (iso: string) => new Intl.DateTimeFormat(undefined, { dateStyle: "long" }).format(new Date(iso));
const timeText = (iso: string) => new Intl.DateTimeFormat(undefined, { timeStyle: "short" }).format(new Date(iso));

function walletError(err: unknown, account: string): string {
  if (err instanceof OtherAccountError)
    return `Your wallet connected the account ${err.connected}, but this link is for ${account}. Choose ${account} in your wallet and try again.`;
  if (err instanceof Refused) return err.message;
  return "Your wallet did not sign. If you closed it by mistake, try again.";
}

/** The hosted bind page: what the user agrees to, in words, then their wallet's signature. */
export function HostedBind() {
  const [state, setState] = useState<PageState>({ kind: "loading" });
  const [token, setToken] = useState("");
  const [sandboxKey, setSandboxKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const sending = useRef(false);
  /** Bumped by "Cancel": an attempt that is no longer current sends nothing when its wallet answers late. */
  const attempt = useRef(0);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    const t = window.location.hash.slice(1);
    setToken(t);
    if (!t) {
      setState({ kind: "invalid" });
      return;
    }
    post<View>("/v1/bind/hosted/view", { token: t }).then(
      (view) =>
        setState(view.status === "bound" ? { kind: "bound", view, redirectTo: view.redirectTo, justNow: false } : { kind: "ready", view }),
      (err: Refused & { status?: number }) => setState({ kind: err.status === 404 ? "invalid" : "unavailable" }),
    );
  }, []);

  useEffect(() => {
    if (state.kind === "bound") heading.current?.focus();
  }, [state.kind]);

  const sign = useCallback(
    async (view: View) => {
      // A double click signs and binds once.
      if (sending.current) return;
      sending.current = true;
      const mine = ++attempt.current;
      setBusy(true);
      setError(null);
      try {
        const proof = await signBindProof({
          chain: view.chain,
          account: view.account.name,
          sandboxKey: view.sandboxWallet && sandboxKey.trim() ? sandboxKey.trim() : undefined,
          challenge: () => post<ProofChallenge>("/v1/bind/hosted/challenge", { token }),
        });
        if (mine !== attempt.current) return;
        const done = await post<Confirmed>("/v1/bind/hosted/confirm", { token, ...proof });
        setState({ kind: "bound", view, redirectTo: done.redirectTo, justNow: true });
        if (done.redirectTo) window.location.assign(done.redirectTo);
      } catch (err) {
        if (mine === attempt.current) setError(walletError(err, view.account.name));
      } finally {
        if (mine === attempt.current) {
          sending.current = false;
          setBusy(false);
        }
      }
    },
    [sandboxKey, token],
  );

  /**
   * WharfKit's wallet dialog can be closed without its login ever answering, which would leave the
   * page waiting for good: the user can always step back. Nothing was signed or sent by then.
   */
  const cancel = useCallback(() => {
    attempt.current++;
    sending.current = false;
    setBusy(false);
    setError("You stopped before your wallet signed. Nothing was sent; you can connect again.");
  }, []);

  if (state.kind === "loading") {
    return (
      <p role="status" className="text-slate-600">
        Loading the request…
      </p>
    );
  }
  if (state.kind === "invalid" || state.kind === "unavailable") {
    return (
      <section aria-labelledby="bind-problem">
        <h1 id="bind-problem" className="text-2xl font-bold tracking-tight sm:text-3xl">
          {state.kind === "invalid" ? "This link does not work" : "This page cannot load right now"}
        </h1>
        <p className="mt-3 text-slate-700">
          {state.kind === "invalid"
            ? "It may have been cut short or already replaced. Open it again from the app that sent it to you, or ask that app for a new one."
            : "Check your connection and reload the page in a moment."}
        </p>
      </section>
    );
  }

  const { view } = state;
  const org = view.organization.name;

  if (state.kind === "bound") {
    return (
      <section role="status" aria-labelledby="bind-done">
        <h1 id="bind-done" ref={heading} tabIndex={-1} className="text-2xl font-bold tracking-tight outline-none sm:text-3xl">
          Your account is linked
        </h1>
        <p className="mt-3 text-slate-700">
          <span className="font-mono break-all">{view.account.name}</span> is linked to your verified identity, and {org} has been told.
        </p>
        {state.redirectTo ? (
          <a
            href={state.redirectTo}
            className="mt-6 inline-flex min-h-11 w-full items-center justify-center rounded-md bg-indigo-600 px-4 py-2 font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 sm:w-auto"
          >
            {state.justNow ? `Returning to ${org}…` : `Continue to ${org}`}
          </a>
        ) : (
          <p className="mt-4 text-sm text-slate-600">You can close this page.</p>
        )}
      </section>
    );
  }

  const expired = view.status === "expired";
  const country = countryName(view.person.country);
  return (
    <section aria-labelledby="bind-title">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">Link your account</p>
      <h1 id="bind-title" className="mt-1 text-2xl font-bold tracking-tight sm:text-3xl">
        {org} asks you to link <span className="font-mono break-all">{view.account.name}</span> to your verified identity
      </h1>
      <p className="mt-3 text-slate-700">
        Your wallet signs to show that the account is yours. Nothing is sent to the chain and nothing can be moved.
      </p>

      <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
        <h2 className="text-lg font-semibold">What you agree to</h2>
        <dl className="mt-4 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[9rem_1fr]">
          <dt className="font-medium text-slate-500">Organization</dt>
          <dd className="break-words text-slate-900">{org}</dd>
          <dt className="font-medium text-slate-500">Account</dt>
          <dd className="text-slate-900">
            <span className="font-mono break-all">{view.account.name}</span> on {chainName(view.account.chain)}
          </dd>
          <dt className="font-medium text-slate-500">Identity</dt>
          <dd className="text-slate-900">
            The person verified for {org}
            {view.person.verifiedAt ? ` on ${dateText(view.person.verifiedAt)}` : ""} ({levelText(view.person.kycLevel)}
            {country ? `, ${country}` : ""})
          </dd>
        </dl>
        <ul className="mt-5 list-disc space-y-2 pl-5 text-sm text-slate-700">
          <li>{org} learns that this account is yours and receives a signed credential saying so. It holds no name and no document.</li>
          <li>
            Your wallet signs a proof that is never sent to the chain; its action cannot run there, so it cannot spend or move anything.
          </li>
          <li>Only sign if you are the person who verified their identity with {org}.</li>
        </ul>
      </div>

      {expired ? (
        <p role="alert" className="mt-6 rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900">
          This link has expired. Go back to {org} and ask for a new one.
        </p>
      ) : (
        <form
          className="mt-6 space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            void sign(view);
          }}
        >
          {view.sandboxWallet ? (
            <details className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-950">
              <summary className="cursor-pointer font-medium">Sandbox: sign with a test key instead of a wallet</summary>
              <label htmlFor="sandbox-key" className="mt-3 block font-medium">
                Private key of the account&apos;s active permission
              </label>
              <input
                id="sandbox-key"
                type="password"
                autoComplete="off"
                spellCheck={false}
                value={sandboxKey}
                onChange={(e) => setSandboxKey(e.target.value)}
                className="mt-1 block w-full rounded-md border border-amber-300 bg-white px-3 py-2 font-mono text-sm"
                placeholder="PVT_K1_…"
              />
              <p className="mt-2 text-amber-900">
                For test accounts on the sandbox chain only. The key stays in this page; it is never sent or stored.
              </p>
            </details>
          ) : null}
          {error ? (
            <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
              {error}
            </p>
          ) : null}
          <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
            <button
              type="submit"
              disabled={busy}
              aria-busy={busy}
              className="inline-flex min-h-11 w-full items-center justify-center rounded-md bg-indigo-600 px-4 py-2 font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60 sm:w-auto"
            >
              {busy ? "Waiting for your wallet…" : "Connect wallet and sign"}
            </button>
            {busy ? (
              <button
                type="button"
                onClick={cancel}
                className="inline-flex min-h-11 w-full items-center justify-center rounded-md border border-slate-300 bg-white px-4 py-2 font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 sm:w-auto"
              >
                Cancel
              </button>
            ) : null}
          </div>
          <p className="text-sm text-slate-600">
            Works with Anchor, Wombat and Cloud Wallet. This link works until {timeText(view.expiresAt)}.
          </p>
        </form>
      )}
    </section>
  );
}
