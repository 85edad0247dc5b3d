"use client";

import { useState } from "react";

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

export function SandboxVerification({ applicantId }: { applicantId: string }) {
  const [choice, setChoice] = useState<Outcome>("approved");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
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
      setResult(body as Result);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  if (result) {
    return (
      <section role="status" className="mt-8 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h2 className="text-xl font-semibold">Submitted</h2>
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
          <p className="mt-4 text-sm text-slate-500">You can close this page.</p>
        )}
      </section>
    );
  }

  return (
    <form onSubmit={submit} className="mt-8 space-y-4">
      <fieldset className="space-y-3">
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
        disabled={busy}
        className="w-full rounded-md bg-indigo-600 px-4 py-3 font-medium text-white hover:bg-indigo-500 disabled:opacity-60 sm:w-auto"
      >
        {busy ? "Submitting…" : "Submit document"}
      </button>
    </form>
  );
}
