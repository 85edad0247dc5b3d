"use client";

import { useEffect, useState } from "react";
import { QrCode } from "@/components/signup/qr-code";
import { WalletAppLink } from "./wallet-app-link";

type Offer = { uri: string; issuerHost: string };

type PageState = { kind: "loading" } | { kind: "missing" } | { kind: "unreadable" } | { kind: "ready"; offer: Offer };

/**
 * The offer as the page's address carries it after `#`: `credential_offer=<urlencoded JSON>`, the
 * query of the `openid-credential-offer://` URI that POST /v1/wallet/offers answered. Null when the
 * JSON is not an OpenID4VCI credential offer (cut short when copied, or edited).
 */
function readOffer(fragment: string): Offer | null {
  const json = new URLSearchParams(fragment).get("credential_offer");
  if (!json) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { credential_issuer: issuer, credential_configuration_ids: ids } = parsed as Record<string, unknown>;
  if (typeof issuer !== "string" || !Array.isArray(ids) || ids.length === 0) return null;
  let issuerHost: string;
  try {
    issuerHost = new URL(issuer).host;
  } catch {
    return null;
  }
  return { uri: `openid-credential-offer://?${fragment}`, issuerHost };
}

function stateFromHash(): PageState {
  const fragment = window.location.hash.slice(1);
  if (!fragment) return { kind: "missing" };
  const offer = readOffer(fragment);
  return offer ? { kind: "ready", offer } : { kind: "unreadable" };
}

/**
 * The hosted credential offer page: a QR code for a wallet on another device, a link for a wallet
 * on this one, and what the wallet will ask. Everything comes from the address after `#`, read in
 * the browser; the server only ever serves the empty page.
 */
export function CredentialOffer() {
  const [state, setState] = useState<PageState>({ kind: "loading" });

  useEffect(() => {
    setState(stateFromHash());
    const changed = () => setState(stateFromHash());
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);

  if (state.kind === "loading") {
    return (
      <p role="status" className="text-slate-600">
        Reading the credential offer…
      </p>
    );
  }

  if (state.kind === "missing" || state.kind === "unreadable") {
    return (
      <section aria-labelledby="offer-problem">
        <h1 id="offer-problem" className="text-2xl font-bold tracking-tight sm:text-3xl">
          This credential offer link does not work
        </h1>
        <p className="mt-3 text-slate-700" data-testid="offer-problem">
          {state.kind === "missing"
            ? "The link you opened has no credential offer in it. It may have been cut short when it was copied. Open it again from the message or app that sent it to you, or ask that app for a new one."
            : "The credential offer in this link cannot be read. It may have been cut short or changed when it was copied. Open it again from the message or app that sent it to you, or ask that app for a new one."}
        </p>
      </section>
    );
  }

  const { offer } = state;
  return (
    <section aria-labelledby="offer-title">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">Wallet credential</p>
      <h1 id="offer-title" className="mt-1 text-2xl font-bold tracking-tight sm:text-3xl">
        Add your credential to your wallet
      </h1>
      <p className="mt-3 text-slate-700">
        <span className="break-all font-medium text-slate-900">{offer.issuerHost}</span> offers you a credential saying that your identity
        has been verified. Your wallet app keeps it, and you choose whom you show it to.
      </p>

      <div className="mt-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
        <div className="flex flex-col items-center gap-6 sm:flex-row sm:items-start">
          <QrCode value={offer.uri} label="QR code of the credential offer" className="aspect-square h-auto w-full max-w-80 sm:w-80" />
          <div className="w-full min-w-0">
            <h2 className="text-lg font-semibold">Wallet on another device</h2>
            <p className="mt-1 text-sm text-slate-700">Open your wallet app and scan this code with it.</p>
            <h2 className="mt-5 text-lg font-semibold">Wallet on this device</h2>
            <p className="mt-1 text-sm text-slate-700">Your wallet app opens with the offer.</p>
            <WalletAppLink href={offer.uri} />
          </div>
        </div>
      </div>

      <div className="mt-6 rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-950">
        <h2 className="font-semibold">Before you start</h2>
        <ul className="mt-2 list-disc space-y-2 pl-5">
          <li>
            Your wallet will ask for a <strong className="font-semibold">6-digit code</strong>. You were given it separately, by the app or
            service that sent you this link (in a text message, for example); it is not on this page.
          </li>
          <li>
            The offer expires <strong className="font-semibold">10 minutes</strong> after it was made and works once. If it has expired or
            been used, ask that app or service for a new one.
          </li>
          <li>Keep this page and your code to yourself: together they let a wallet receive your credential.</li>
        </ul>
      </div>
    </section>
  );
}
