"use client";

import { useCallback, useRef, useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";

/** As the server checks them (billing.schema.ts), so the page says what is wrong before sending. */
export const checks = {
  email(v: string): string | null {
    const s = v.trim();
    if (!s) return "Enter your work email address.";
    if (s.length > 254) return "An email address has at most 254 characters.";
    if (!/^[^\s@]+@[^\s@]+\.[^\s@.]{2,}$/.test(s)) return "This is not an email address yet (name@company.com).";
    return null;
  },
  code(v: string): string | null {
    const s = v.replace(/\s/g, "");
    if (!s) return "Enter the 6-digit code from the email.";
    if (!/^\d*$/.test(s)) return "The code has digits only.";
    if (s.length !== 6) return `The code has 6 digits (${s.length} so far).`;
    return null;
  },
  organizationName(v: string): string | null {
    const n = v.trim().length;
    if (n < 2) return "Name your organization (2 to 100 characters).";
    if (n > 100) return `At most 100 characters (${n} now).`;
    return null;
  },
  volume(v: string): string | null {
    const s = v.replace(/[\s,_]/g, "");
    if (!s) return "Enter the verifications you expect a month (an estimate is fine).";
    if (!/^\d+$/.test(s)) return "Enter a whole number, for example 20000.";
    if (Number(s) > 100_000_000) return "At most 100,000,000 a month.";
    return null;
  },
  message(v: string): string | null {
    return v.length > 2000 ? `At most 2,000 characters (${v.length.toLocaleString("en")} now).` : null;
  },
  transactionId(v: string): string | null {
    const s = v.trim();
    if (!s) return "Paste the id of your transfer's transaction.";
    if (s.length > 128 || /\s/.test(s)) return "A transaction id is one word of at most 128 characters.";
    return null;
  },
  account(v: string): string | null {
    const s = v.trim();
    if (s && !/^[a-z1-5.]{1,12}$/.test(s)) return "An account name has 1 to 12 characters: a–z, 1–5 and dots.";
    return null;
  },
};

export function ErrorNote({ children }: { children: React.ReactNode }) {
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
      {children}
    </div>
  );
}

/** A field's problem, shown once the person has typed in it or tried to send. */
export function FieldError({ id, text }: { id: string; text: string | null }) {
  return text ? (
    <p id={id} className="mt-1 text-sm text-red-700">
      {text}
    </p>
  ) : null;
}

/** A value the person must copy exactly: shown in full, wrapped rather than cut, with a copy button. */
export function CopyRow({ label, value, testId, copyLabel }: { label: string; value: string; testId?: string; copyLabel: string }) {
  return (
    <div>
      <p className="text-sm font-medium text-slate-700">{label}</p>
      <div className="mt-1 flex flex-col items-start gap-2 sm:flex-row">
        <code
          data-testid={testId}
          className="w-full min-w-0 flex-1 break-all rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm text-slate-900"
        >
          {value}
        </code>
        <CopyButton value={value} label={copyLabel} />
      </div>
    </div>
  );
}

export function Spinner() {
  return <span aria-hidden className="inline-block h-4 w-4 animate-spin rounded-full border-2 border-current border-r-transparent" />;
}

/**
 * One request at a time for a button that sends: a ref (set before React re-renders) stops the
 * second click of a double click, and `busy` disables the button. `fn` returns "keep" to stay busy
 * (the page is navigating away).
 */
export function useSending() {
  const inFlight = useRef(false);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (fn: () => Promise<void | "keep">) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    let keep = false;
    try {
      keep = (await fn()) === "keep";
    } finally {
      if (!keep) {
        inFlight.current = false;
        setBusy(false);
      }
    }
  }, []);
  const reset = useCallback(() => {
    inFlight.current = false;
    setBusy(false);
  }, []);
  return { busy, run, reset };
}
