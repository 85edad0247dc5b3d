"use client";

import { useCallback, useEffect, useState } from "react";
import type { z } from "zod";
import { ApiError, billingCall, errorText } from "@/components/billing/checkout-api";
import type { CheckoutResult } from "@/server/services/billing";
import type { Secrets } from "./key-reveal";
import type { Plan, SignupState } from "./signup-state";
import { checks, ErrorNote, FieldError, Spinner, useSending } from "./signup-ui";

type Update = (patch: Partial<SignupState>) => void;
type Result = z.infer<typeof CheckoutResult>;

const price = (p: Plan) =>
  p.priceUsdMonthly === null ? "Priced by sales" : p.priceUsdMonthly === 0 ? "Free" : `$${p.priceUsdMonthly} a month`;
const verifications = (p: Plan) =>
  p.verificationsPerMonth === null
    ? "Verifications by contract"
    : `${p.verificationsPerMonth.toLocaleString("en")} verifications a month included`;

const ACTION = { builder: "Create my organization", growth: "Continue to payment", institutional: "Send to sales" } as const;

/** An Idempotency-Key for one checkout body (randomUUID needs a secure context; a hosted http sandbox may lack one). */
function newKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function PlanChoice({ plans, value, onChange }: { plans: Plan[]; value: string; onChange: (p: Plan) => void }) {
  // What the catalog lists for every plan is said once, under the cards; each card shows what differs.
  const common = plans[0]?.includes.filter((line) => plans.every((p) => p.includes.includes(line))) ?? [];
  return (
    <fieldset>
      <legend className="label">Plan</legend>
      <div className="mt-1 grid gap-3 md:grid-cols-3">
        {plans.map((p) => {
          const checked = p.id === value;
          return (
            <label
              key={p.id}
              className={`relative flex cursor-pointer flex-col rounded-lg border p-4 transition-colors has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-400 ${
                checked ? "border-indigo-600 bg-indigo-50/60 ring-1 ring-indigo-600" : "border-slate-200 bg-white hover:border-slate-300"
              }`}
            >
              <span className="flex items-start justify-between gap-2">
                <span id={`plan-${p.id}`} className="font-semibold text-slate-900">
                  {p.name}
                </span>
                <input
                  type="radio"
                  name="plan"
                  value={p.id}
                  checked={checked}
                  onChange={() => onChange(p)}
                  aria-labelledby={`plan-${p.id}`}
                  aria-describedby={`plan-${p.id}-desc`}
                  className="mt-1 h-4 w-4 accent-indigo-600"
                />
              </span>
              <span id={`plan-${p.id}-desc`} className="mt-1 block text-sm text-slate-600">
                <span className="block text-base font-medium text-slate-900">{price(p)}</span>
                <span className="mt-2 block">{p.limits.requestsPerMinute.toLocaleString("en")} API requests a minute</span>
                <span className="block">{verifications(p)}</span>
                <span className="mt-2 block text-xs text-slate-500">
                  {p.support}
                  {p.sla ? `. Uptime SLA: ${p.sla}` : ""}
                </span>
              </span>
            </label>
          );
        })}
      </div>
      {common.length ? (
        <div className="mt-3 text-xs text-slate-500">
          <p className="font-medium text-slate-600">Every plan includes</p>
          <ul className="mt-1 list-disc space-y-0.5 pl-4">
            {common.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </fieldset>
  );
}

/** Step 3: the plan (from the catalog) and the organization, then the checkout that fits the plan. */
export function PlanStep({
  state,
  update,
  onRevealed,
  onRestartEmail,
}: {
  state: SignupState;
  update: Update;
  onRevealed: (s: Secrets) => void;
  onRestartEmail: () => void;
}) {
  const [plans, setPlans] = useState<Plan[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [touched, setTouched] = useState({ name: false, volume: false, message: false });
  const [error, setError] = useState<{ text: string; proofRefused: boolean } | null>(null);
  const { busy, run } = useSending();

  const load = useCallback(() => {
    setLoadError(null);
    billingCall<{ plans: Plan[] }>("/v1/billing/plans").then(
      (c) => setPlans(c.plans),
      (e) => setLoadError(errorText(e)),
    );
  }, []);
  useEffect(load, [load]);

  const institutional = state.plan === "institutional";
  const problems = {
    name: checks.organizationName(state.organizationName),
    volume: institutional ? checks.volume(state.expectedMonthlyVerifications) : null,
    message: institutional ? checks.message(state.message) : null,
  };
  const proofExpired = state.proofExpiresAt !== undefined && Date.now() > state.proofExpiresAt;

  function submit(e: React.FormEvent) {
    e.preventDefault();
    setTouched({ name: true, volume: true, message: true });
    if (problems.name || problems.volume || problems.message || !state.emailProofToken) return;
    const emailProofToken = state.emailProofToken;
    void run(async () => {
      setError(null);
      const body = {
        emailProofToken,
        plan: state.plan,
        organizationName: state.organizationName.trim(),
        ...(institutional
          ? {
              expectedMonthlyVerifications: Number(state.expectedMonthlyVerifications.replace(/[\s,_]/g, "")),
              ...(state.message.trim() ? { message: state.message.trim() } : {}),
            }
          : {}),
      };
      // The same body keeps its key, so a resend after a lost answer (a reload mid-request) replays it.
      const bodyText = JSON.stringify(body);
      const key = state.idempotencyBody === bodyText && state.idempotencyKey ? state.idempotencyKey : newKey();
      update({ idempotencyKey: key, idempotencyBody: bodyText });
      try {
        const out = await billingCall<Result>("/v1/billing/checkout", body, { idempotencyKey: key });
        const done = { idempotencyKey: undefined, idempotencyBody: undefined };
        if (out.status === "provisioned") {
          onRevealed({
            apiKey: out.apiKey,
            consolePassword: out.consolePassword,
            organizationId: out.organizationId,
          });
        } else if (out.status === "awaiting_payment") {
          update({ ...done, step: "payment", sessionId: out.sessionId, checkoutUrl: out.checkoutUrl, chainPayment: out.chainPayment });
        } else {
          update({ ...done, step: "lead", sessionId: out.sessionId, emailProofToken: undefined });
        }
      } catch (err) {
        setError({ text: errorText(err), proofRefused: err instanceof ApiError && err.status === 403 });
      }
    });
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-6">
      <div>
        <h2 className="text-xl font-semibold tracking-tight">Choose a plan and name your organization</h2>
        <p className="mt-1 text-sm text-slate-600">
          Confirmed: <span className="font-medium text-slate-900">{state.emailMasked}</span>. Builder can move to Growth later and keep its
          keys.
        </p>
      </div>

      {plans ? (
        <PlanChoice plans={plans} value={state.plan} onChange={(p) => update({ plan: p.id })} />
      ) : loadError ? (
        <ErrorNote>
          <p>The plans could not be loaded: {loadError}</p>
          <button type="button" className="btn-secondary mt-2" onClick={load}>
            Try again
          </button>
        </ErrorNote>
      ) : (
        <div role="status" className="grid gap-3 md:grid-cols-3">
          <span className="sr-only">Loading the plans…</span>
          {[0, 1, 2].map((i) => (
            <div key={i} className="h-40 animate-pulse rounded-lg bg-slate-100" />
          ))}
        </div>
      )}

      <div>
        <label htmlFor="signup-org" className="label">
          Organization name
        </label>
        <input
          id="signup-org"
          className="field"
          autoComplete="organization"
          placeholder="Acme Wallet Ltd"
          value={state.organizationName}
          onChange={(e) => {
            update({ organizationName: e.target.value });
            if (e.target.value.trim().length >= 2 || e.target.value.length > 100) setTouched((t) => ({ ...t, name: true }));
          }}
          onBlur={() => state.organizationName && setTouched((t) => ({ ...t, name: true }))}
          aria-invalid={touched.name && problems.name ? true : undefined}
          aria-describedby="signup-org-hint"
        />
        {touched.name && problems.name ? (
          <FieldError id="signup-org-hint" text={problems.name} />
        ) : (
          <p id="signup-org-hint" className="mt-1 text-sm text-slate-500">
            As your customers and auditors know it; 2 to 100 characters ({state.organizationName.trim().length} now).
          </p>
        )}
      </div>

      {institutional ? (
        <div className="space-y-5 rounded-lg border border-slate-200 bg-slate-50 p-4">
          <p className="text-sm text-slate-700">
            Institutional is agreed with our sales team. Tell us what you expect; nothing is charged and no key is issued until the contract
            is signed.
          </p>
          <div>
            <label htmlFor="signup-volume" className="label">
              Expected verifications a month
            </label>
            <input
              id="signup-volume"
              inputMode="numeric"
              className="field max-w-60"
              placeholder="20000"
              value={state.expectedMonthlyVerifications}
              onChange={(e) => {
                update({ expectedMonthlyVerifications: e.target.value });
                setTouched((t) => ({ ...t, volume: true }));
              }}
              aria-invalid={touched.volume && problems.volume ? true : undefined}
              aria-describedby={touched.volume && problems.volume ? "signup-volume-error" : undefined}
            />
            <FieldError id="signup-volume-error" text={touched.volume ? problems.volume : null} />
          </div>
          <div>
            <label htmlFor="signup-message" className="label">
              Message to sales <span className="font-normal text-slate-500">(optional)</span>
            </label>
            <textarea
              id="signup-message"
              rows={4}
              className="field"
              placeholder="Chains you serve, regions, the date you want to go live…"
              value={state.message}
              onChange={(e) => {
                update({ message: e.target.value });
                setTouched((t) => ({ ...t, message: true }));
              }}
              aria-invalid={problems.message ? true : undefined}
              aria-describedby="signup-message-count"
            />
            <p id="signup-message-count" className={`mt-1 text-sm ${problems.message ? "text-red-700" : "text-slate-500"}`}>
              {problems.message ?? `${state.message.length.toLocaleString("en")} of 2,000 characters`}
            </p>
          </div>
        </div>
      ) : null}

      {state.plan === "growth" ? (
        <p className="text-sm text-slate-600">On the next screen you pay by card or with a token transfer on chain.</p>
      ) : null}

      {proofExpired && !error ? (
        <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          Your email confirmation is more than 15 minutes old and may have expired. If the next step refuses it, confirm your email again.
        </p>
      ) : null}

      {error ? (
        <ErrorNote>
          <p>{error.text}</p>
          {error.proofRefused ? (
            <button type="button" className="btn-secondary mt-2" onClick={onRestartEmail}>
              Confirm my email again
            </button>
          ) : null}
        </ErrorNote>
      ) : null}

      <button type="submit" className="btn-primary w-full py-2.5 sm:w-auto" disabled={busy || !plans}>
        {busy ? <Spinner /> : null}
        {busy ? "Sending…" : ACTION[state.plan]}
      </button>
    </form>
  );
}
