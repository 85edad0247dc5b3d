"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { forgetCheckoutProof } from "@/components/billing/checkout-api";
import { CodeStep, EmailStep } from "./email-steps";
import { KeyReveal, type Secrets, ShownOnce } from "./key-reveal";
import { LeadSent } from "./lead-sent";
import { PaymentStep } from "./payment-step";
import { PlanStep } from "./plan-step";
import { Progress } from "./progress";
import { initialState, loadState, type PlanId, type SignupState, saveState } from "./signup-state";

/** What the step does not hold once a checkout has handed out (or can no longer hand out) its key. */
const SPENT = {
  emailProofToken: undefined,
  proofExpiresAt: undefined,
  challengeId: undefined,
  idempotencyKey: undefined,
  idempotencyBody: undefined,
  transactionId: undefined,
  payer: undefined,
} satisfies Partial<SignupState>;

function Aside() {
  return (
    <aside className="space-y-6 text-sm text-slate-600">
      <div>
        <h2 className="font-semibold text-slate-900">What you get</h2>
        <ul className="mt-2 space-y-2">
          <li className="flex gap-2">
            <Check />
            An organization of your own, with an API key for your backend
          </li>
          <li className="flex gap-2">
            <Check />A console password for the web console: members, keys, audit log
          </li>
          <li className="flex gap-2">
            <Check />
            The limits of your plan from the first request
          </li>
        </ul>
      </div>
      <div>
        <h2 className="font-semibold text-slate-900">Your email</h2>
        <p className="mt-2">It becomes your organization&apos;s contact. The code we send now proves the address is yours.</p>
      </div>
      <div className="flex flex-col gap-1.5">
        <a href="/pricing" className="font-medium text-indigo-700 hover:underline">
          Compare the plans
        </a>
        <a href="/docs" className="font-medium text-indigo-700 hover:underline">
          Read the API reference
        </a>
        <a href="/console/sign-in" className="font-medium text-indigo-700 hover:underline">
          Already a customer? Sign in
        </a>
      </div>
    </aside>
  );
}

function Check() {
  return (
    <svg viewBox="0 0 20 20" aria-hidden className="mt-0.5 h-4 w-4 shrink-0 fill-emerald-600">
      <path d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z" />
    </svg>
  );
}

/**
 * /signup: work email → code → plan and organization → key (Builder), payment (Growth) or a sales
 * lead (Institutional). The step and what the next call needs are kept in this tab's
 * sessionStorage, so a reload resumes where it was; the key and password are kept in memory only,
 * so a reload after the one showing says it was shown instead of showing it again.
 */
export function SignupFlow({ initialPlan, planFromUrl }: { initialPlan: PlanId; planFromUrl: boolean }) {
  const [state, setState] = useState<SignupState | null>(null);
  const stateRef = useRef<SignupState | null>(null);
  const [secrets, setSecrets] = useState<Secrets | null>(null);

  // Storage exists only in the browser: read it after hydration.
  useEffect(() => {
    const loaded = loadState(initialPlan, planFromUrl);
    stateRef.current = loaded;
    saveState(loaded);
    setState(loaded);
  }, [initialPlan, planFromUrl]);

  // Written to storage before React renders, so a reload right after a step never goes back.
  const update = useCallback((patch: Partial<SignupState>) => {
    const prev = stateRef.current;
    if (!prev) return;
    const next = { ...prev, ...patch };
    stateRef.current = next;
    saveState(next);
    setState(next);
  }, []);

  const restart = useCallback((plan?: PlanId) => {
    const prev = stateRef.current;
    const next = { ...initialState(plan ?? prev?.plan ?? "builder"), email: prev?.email ?? "" };
    stateRef.current = next;
    saveState(next);
    setState(next);
    setSecrets(null);
  }, []);

  // The sandbox code lives in the stored state, so the hint survives a reload of the code step.
  const setDevCode = useCallback((code: string | null) => update({ devCode: code ?? undefined }), [update]);

  const onRevealed = useCallback(
    (s: Secrets) => {
      const sessionId = stateRef.current?.sessionId;
      // "Revealed" is stored first: from here on a reload can only say the key was shown.
      update({ ...SPENT, step: "revealed", organizationId: s.organizationId });
      if (sessionId) {
        try {
          forgetCheckoutProof(sessionId);
        } catch {
          // Storage switched off: nothing was kept.
        }
      }
      setSecrets(s);
    },
    [update],
  );

  const onShownElsewhere = useCallback(
    (organizationId: string | null) => update({ ...SPENT, step: "revealed", organizationId: organizationId ?? undefined }),
    [update],
  );

  if (!state) {
    return (
      <div role="status" className="mt-8">
        <span className="sr-only">Loading…</span>
        <div className="h-72 animate-pulse rounded-lg bg-slate-100" />
      </div>
    );
  }

  let body: React.ReactNode;
  switch (state.step) {
    case "email":
      body = <EmailStep state={state} update={update} onDevCode={setDevCode} />;
      break;
    case "code":
      body = <CodeStep state={state} update={update} devCode={state.devCode ?? null} onDevCode={setDevCode} />;
      break;
    case "plan":
      body = (
        <PlanStep
          state={state}
          update={update}
          onRevealed={onRevealed}
          onRestartEmail={() => update({ step: "email", emailProofToken: undefined, proofExpiresAt: undefined })}
        />
      );
      break;
    case "payment":
      body = (
        <PaymentStep
          state={state}
          update={update}
          onRevealed={onRevealed}
          onShownElsewhere={onShownElsewhere}
          onRestart={() => restart("growth")}
        />
      );
      break;
    case "revealed":
      body = secrets ? <KeyReveal secrets={secrets} /> : <ShownOnce organizationId={state.organizationId} onRestart={() => restart()} />;
      break;
    case "lead":
      body = (
        <LeadSent
          emailMasked={state.emailMasked}
          organizationName={state.organizationName}
          sessionId={state.sessionId}
          onStartBuilder={() => restart("builder")}
        />
      );
      break;
  }

  const early = state.step === "email" || state.step === "code" || state.step === "plan";
  const done = state.step === "revealed" || state.step === "lead";
  return (
    <>
      <Progress step={state.step} />
      <div className={`mt-6 grid gap-8 ${done ? "max-w-3xl" : "lg:grid-cols-[minmax(0,1fr)_17rem]"}`}>
        <div className="min-w-0">
          <div className="card sm:p-8">{body}</div>
          {early && state.step !== "email" ? (
            <button
              type="button"
              className="mt-3 text-sm text-slate-500 underline underline-offset-2 hover:text-slate-700"
              onClick={() => restart()}
            >
              Start over
            </button>
          ) : null}
        </div>
        {done ? null : <Aside />}
      </div>
    </>
  );
}
