"use client";

import { useEffect, useRef, useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";

const DOCUMENTS = [
  { outcome: "approved", title: "Valid passport", detail: "A genuine document; the review approves the applicant." },
  { outcome: "rejected", title: "Forged identity card", detail: "The review rejects the applicant for good." },
  { outcome: "retry", title: "Blurred driving licence", detail: "The provider asks for a resubmission." },
  { outcome: "pep", title: "Passport of a politically exposed person", detail: "Approved, and screening raises a PEP alert." },
  {
    outcome: "sanctions",
    title: "Passport of a sanctioned person",
    detail: "The review fails on a sanctions match and a compliance case opens.",
  },
] as const;

type Outcome = (typeof DOCUMENTS)[number]["outcome"];
type Result = { status: string; redirectUrl: string | null };

const STATUS_TEXT: Record<string, string> = {
  approved: "Your identity is verified.",
  rejected: "Your verification was not successful.",
  retry: "Please submit your document again.",
  in_review: "Your documents are being reviewed.",
  pending: "Your verification is pending.",
};

/** Approved and rejected are final at the service: another document changes nothing, so the form is not offered again. */
const FINAL = new Set(["approved", "rejected"]);
/** The final decision is remembered in this browser, so a reload or the link opened again shows it instead of the form. */
const storageKey = (applicantId: string) => `bi-sandbox-verification:${applicantId}`;

function rememberedResult(applicantId: string): Result | null {
  try {
    const saved = JSON.parse(window.localStorage.getItem(storageKey(applicantId)) ?? "null") as Result | null;
    return saved && typeof saved.status === "string" && FINAL.has(saved.status) ? saved : null;
  } catch {
    return null;
  }
}

export function SandboxVerification({ applicantId }: { applicantId: string }) {
  const [choice, setChoice] = useState<Outcome>("approved");
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The form is disabled in the server's HTML: before the script runs, a click would submit it natively.
  const hydrated = useHydrated();

  useEffect(() => {
    const saved = rememberedResult(applicantId);
    if (saved) setResult(saved);
  }, [applicantId]);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    // A double click sends one document.
    if (sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(`/v1/sandbox/kyc/hosted/${encodeURIComponent(applicantId)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ outcome: choice }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(body?.error?.message ?? "The verification could not be submitted.");
      const answer = body as Result;
      if (FINAL.has(answer.status)) {
        try {
          window.localStorage.setItem(storageKey(applicantId), JSON.stringify(answer));
        } catch {
          // Storage can be off (private mode): the result still shows until the page is left.
        }
      }
      setResult(answer);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      sending.current = false;
      setBusy(false);
    }
  }

  if (result && FINAL.has(result.status)) {
    return (
      <section role="status" className="mt-8 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h2 className="text-xl font-semibold">Decision made</h2>
        <p className="mt-2 text-slate-700" data-testid="verification-status">
          {STATUS_TEXT[result.status] ?? `Status: ${result.status}`}
        </p>
        {result.redirectUrl ? (
          <a
            href={result.redirectUrl}
            className="mt-4 inline-block rounded-md bg-indigo-600 px-4 py-2 font-medium text-white hover:bg-indigo-500"
          >
            Continue
          </a>
        ) : (
          <p className="mt-4 text-sm text-slate-600">You can close this page.</p>
        )}
        <p className="mt-4 text-sm text-slate-600">This decision is final: this verification cannot be submitted again.</p>
      </section>
    );
  }

  return (
    <form onSubmit={submit} className="mt-8 space-y-4">
      {result && (
        // Not final (a resubmission was asked for, or the review is still running): the form stays.
        <p
          role="status"
          className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
          data-testid="verification-status"
        >
          {STATUS_TEXT[result.status] ?? `Status: ${result.status}`}
        </p>
      )}
      <fieldset disabled={!hydrated} className="space-y-3">
        <legend className="text-sm font-medium text-slate-700">Test document</legend>
        {DOCUMENTS.map((d) => (
          <label
            key={d.outcome}
            className={`flex cursor-pointer gap-3 rounded-lg border bg-white p-4 shadow-sm transition ${
              choice === d.outcome ? "border-indigo-500 ring-2 ring-indigo-200" : "border-slate-200 hover:border-slate-300"
            }`}
          >
            <input
              type="radio"
              name="outcome"
              value={d.outcome}
              checked={choice === d.outcome}
              onChange={() => setChoice(d.outcome)}
              className="mt-1"
            />
            <span>
              <span className="block font-medium">{d.title}</span>
              <span className="block text-sm text-slate-600">{d.detail}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {error ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={busy || !hydrated}
        className="w-full rounded-md bg-indigo-600 px-4 py-3 font-medium text-white hover:bg-indigo-500 disabled:opacity-60 sm:w-auto"
      >
        {busy ? "Submitting…" : "Submit document"}
      </button>
    </form>
  );
}
