"use client";

import Link from "next/link";
import { useEffect, useId, useRef, useState } from "react";
import { Icon } from "./icons";
import { type AdviceAnswer, ApiError, askAdvisor, type CatalogPlan, fmtCount, priceLabel } from "./public-api";

// The bounds of AdviseInput (src/server/services/billing/billing.schema.ts), checked as the person types.
const QUESTION_MAX = 2000;
const QUESTION_WARN = 1800;
const VERIFICATIONS_MAX = 100_000_000;
const RPM_MAX = 1_000_000;

type NumberCheck = { value?: number; error?: string };

/** An optional whole number of 0 or more; thousands separators (commas, spaces) are allowed. */
function checkCount(raw: string, max: number): NumberCheck {
  const s = raw.replace(/[\s,]/g, "");
  if (s === "") return {};
  if (!/^\d+$/.test(s)) return { error: "Enter a whole number of 0 or more, without decimals." };
  const value = Number(s);
  if (value > max) return { error: `At most ${fmtCount(max)}.` };
  return { value };
}

function checkQuestion(raw: string): string | undefined {
  const n = raw.trim().length;
  if (n === 0) return "Write your question.";
  if (n > QUESTION_MAX) return `At most ${fmtCount(QUESTION_MAX)} characters: remove ${fmtCount(n - QUESTION_MAX)}.`;
  return undefined;
}

export function PlanAdvisor({ plans }: { plans: CatalogPlan[] }) {
  const ids = useId();
  const [question, setQuestion] = useState("");
  const [verifications, setVerifications] = useState("");
  const [rpm, setRpm] = useState("");
  const [needsSla, setNeedsSla] = useState(false);
  const [questionTouched, setQuestionTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  /** The question the advice on screen answers: asking it again (a double click whose second click comes after the answer) sends nothing. */
  const answered = useRef<string | null>(null);
  const [advice, setAdvice] = useState<AdviceAnswer | null>(null);
  const [error, setError] = useState<{ message: string; retryAt: number | null } | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const questionRef = useRef<HTMLTextAreaElement>(null);
  const verificationsRef = useRef<HTMLInputElement>(null);
  const rpmRef = useRef<HTMLInputElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);

  const questionError = checkQuestion(question);
  const v = checkCount(verifications, VERIFICATIONS_MAX);
  const r = checkCount(rpm, RPM_MAX);
  const questionLength = question.trim().length;
  const waitSec = error?.retryAt ? Math.max(0, Math.ceil((error.retryAt - now) / 1000)) : 0;

  // While a 429 is being waited out, tick once a second so the button says how long is left.
  useEffect(() => {
    if (!error?.retryAt) return;
    const t = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= error.retryAt!) clearInterval(t);
    }, 1000);
    return () => clearInterval(t);
  }, [error]);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (sending.current) return;
    setQuestionTouched(true);
    if (questionError) return questionRef.current?.focus();
    if (v.error) return verificationsRef.current?.focus();
    if (r.error) return rpmRef.current?.focus();
    if (waitSec > 0) return;
    const input = {
      question: question.trim(),
      ...(v.value !== undefined && { expectedMonthlyVerifications: v.value }),
      ...(r.value !== undefined && { expectedRequestsPerMinute: r.value }),
      ...(needsSla && { needsSla: true }),
    };
    const asked = JSON.stringify(input);
    if (answered.current === asked) return resultRef.current?.focus();
    sending.current = true;
    setBusy(true);
    setError(null);
    try {
      const answer = await askAdvisor(input);
      answered.current = asked;
      setAdvice(answer);
      requestAnimationFrame(() => resultRef.current?.focus());
    } catch (err) {
      const apiErr = err instanceof ApiError ? err : null;
      const retryAt = apiErr?.retryAfterSec ? Date.now() + apiErr.retryAfterSec * 1000 : null;
      setNow(Date.now());
      setError({
        message: `${err instanceof Error ? err.message : "The advisor could not answer."}${
          apiErr?.retryAfterSec ? ` You can ask again in ${apiErr.retryAfterSec} seconds.` : ""
        }`,
        retryAt,
      });
    } finally {
      sending.current = false;
      setBusy(false);
    }
  }

  const showQuestionError = questionTouched && questionError;
  const recommended = advice ? plans.find((p) => p.id === advice.recommendedPlan.id) : undefined;
  const action = advice && {
    href: `/signup?plan=${encodeURIComponent(advice.recommendedPlan.id)}`,
    label:
      recommended?.checkout === "sales"
        ? `Talk to sales about ${advice.recommendedPlan.name}`
        : `Sign up for ${advice.recommendedPlan.name}`,
  };

  return (
    <div className="grid gap-6">
      <form
        noValidate
        onSubmit={submit}
        aria-label="Plan advisor"
        className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-7"
      >
        <div>
          <label htmlFor={`${ids}-q`} className="label">
            Your question
          </label>
          <textarea
            ref={questionRef}
            id={`${ids}-q`}
            className="field min-h-28 resize-y"
            placeholder="For example: we expect about 20,000 new users a month on WAX and need a signed DPA."
            value={question}
            onChange={(e) => setQuestion(e.target.value)}
            onBlur={() => setQuestionTouched(true)}
            aria-invalid={showQuestionError ? true : undefined}
            aria-describedby={`${ids}-q-help`}
            required
          />
          <div id={`${ids}-q-help`} className="mt-1 flex justify-between gap-3 text-xs">
            <span className={showQuestionError ? "text-red-700" : "text-slate-500"}>
              {showQuestionError ? questionError : "Describe your users, chains and volumes."}
            </span>
            {questionLength >= QUESTION_WARN && (
              <span className={`shrink-0 tabular-nums ${questionLength > QUESTION_MAX ? "font-medium text-red-700" : "text-amber-700"}`}>
                {fmtCount(questionLength)} / {fmtCount(QUESTION_MAX)}
              </span>
            )}
          </div>
        </div>

        <div className="mt-5 grid gap-5 sm:grid-cols-2">
          <CountField
            id={`${ids}-v`}
            inputRef={verificationsRef}
            label="Expected verifications a month"
            hint="Optional. KYC checks of new people."
            value={verifications}
            onChange={setVerifications}
            error={v.error}
          />
          <CountField
            id={`${ids}-r`}
            inputRef={rpmRef}
            label="Expected API requests per minute"
            hint="Optional. Your busiest minute."
            value={rpm}
            onChange={setRpm}
            error={r.error}
          />
        </div>

        <label className="mt-5 flex items-start gap-3 text-sm text-slate-700">
          <input
            type="checkbox"
            className="mt-0.5 h-4 w-4 rounded border-slate-300 text-indigo-600 focus:ring-indigo-500"
            checked={needsSla}
            onChange={(e) => setNeedsSla(e.target.checked)}
          />
          <span>
            <span className="font-medium text-slate-900">We need an uptime SLA</span>
            <span className="block text-slate-500">A contractual uptime commitment with service credits.</span>
          </span>
        </label>

        <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:items-center">
          <button type="submit" className="btn-primary shrink-0 whitespace-nowrap px-5 py-2.5 text-base" disabled={busy || waitSec > 0}>
            {busy ? "Asking…" : waitSec > 0 ? `Ask again in ${waitSec} s` : "Recommend a plan"}
          </button>
          <p className="text-xs text-slate-500">The recommendation is computed from our plan catalog and the figures you give.</p>
        </div>

        {error && (
          <div role="alert" className="mt-5 rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-800">
            <p className="font-medium">The advisor could not answer.</p>
            <p className="mt-1">{error.message}</p>
          </div>
        )}
      </form>

      <div aria-live="polite">
        {advice && action && (
          <div
            ref={resultRef}
            tabIndex={-1}
            data-testid="advice"
            className="rounded-2xl border border-indigo-200 bg-white p-5 shadow-sm outline-none sm:p-7"
          >
            <p className="text-sm font-medium text-indigo-700">Our recommendation</p>
            <h3 className="mt-1 text-2xl font-semibold tracking-tight text-slate-900">
              <span data-testid="advice-plan">{advice.recommendedPlan.name}</span>
            </h3>
            <p className="mt-1 text-sm text-slate-600">
              {priceLabel(advice.recommendedPlan.priceUsdMonthly)}
              {advice.recommendedPlan.priceUsdMonthly ? " per month" : ""} · {fmtCount(advice.recommendedPlan.limits.requestsPerMinute)}{" "}
              requests per minute ·{" "}
              {advice.recommendedPlan.verificationsPerMonth === null
                ? "verifications by contract"
                : `${fmtCount(advice.recommendedPlan.verificationsPerMonth)} verifications a month`}
            </p>
            <h4 className="mt-5 text-sm font-medium text-slate-900">Why this plan</h4>
            <ul className="mt-2 space-y-2 text-sm text-slate-700">
              {advice.reasons.map((reason) => (
                <li key={reason} className="flex gap-2">
                  <Icon name="check" className="mt-0.5 h-4 w-4 shrink-0 text-indigo-600" />
                  <span>{reason}</span>
                </li>
              ))}
            </ul>
            {/* The rules' own answer is the reasons in one paragraph; only a model's phrasing adds something to read. */}
            {advice.source === "model" && advice.answer && (
              <p className="mt-5 whitespace-pre-line text-sm leading-relaxed text-slate-600">{advice.answer}</p>
            )}
            <Link href={action.href} className="btn-primary mt-6 px-5 py-2.5 text-base">
              {action.label}
            </Link>
          </div>
        )}
      </div>
    </div>
  );
}

function CountField(props: {
  id: string;
  inputRef: React.RefObject<HTMLInputElement | null>;
  label: string;
  hint: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  return (
    <div>
      <label htmlFor={props.id} className="label">
        {props.label}
      </label>
      <input
        ref={props.inputRef}
        id={props.id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        className="field"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={`${props.id}-help`}
      />
      <p id={`${props.id}-help`} className={`mt-1 text-xs ${props.error ? "text-red-700" : "text-slate-500"}`}>
        {props.error ?? props.hint}
      </p>
    </div>
  );
}
