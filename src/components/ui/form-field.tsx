import { useState } from "react";

/**
 * Small pieces of a console form: a character counter beside a limited field, the words of a
 * field's error and what ties them to the field, and the form's error paragraph. Limited fields
 * let people type past the limit: the counter turns red and the form refuses to send, so nothing
 * is cut silently.
 */
export function Counter({ id, value, max, min = 0 }: { id: string; value: string; max: number; min?: number }) {
  const n = value.trim().length;
  const over = n > max;
  const near = !over && n >= max * 0.9;
  return (
    <p
      id={id}
      className={`mt-1 text-right text-xs tabular-nums ${over ? "font-medium text-red-700" : near ? "text-amber-700" : "text-slate-500"}`}
    >
      {n} / {max}
      {over ? ` · ${n - max} over the limit` : min > 1 && n > 0 && n < min ? ` · at least ${min}` : ""}
    </p>
  );
}

export function FieldError({ id, text }: { id: string; text?: string | null }) {
  if (!text) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-700">
      {text}
    </p>
  );
}

/**
 * One field's error: the attributes of its input (invalid, and described by the words while they
 * show) and the line of words, `<id>-error`, to put under it. `also` names what describes the
 * input all the time (its counter). `text` is `submission.fieldError(key)` or a form's own check.
 */
export function fieldProblem(id: string, text: string | null | undefined, also?: string) {
  const errorId = `${id}-error`;
  const describedBy = [also, text ? errorId : null].filter(Boolean).join(" ");
  return {
    attrs: { "aria-invalid": text ? (true as const) : undefined, "aria-describedby": describedBy || undefined },
    line: <FieldError id={errorId} text={text} />,
  };
}

/**
 * A form's own checks before it sends, for forms that check one field at a time (sign-in,
 * invitation): the first check that fails shows its words under its field and takes the focus;
 * the words go as soon as that field is edited.
 */
export function useFieldChecks() {
  const [failed, setFailed] = useState<{ field: string; text: string } | null>(null);
  return {
    /** `[field id, passes, words]` in order; true when every check passes. */
    require(checks: [field: string, ok: boolean, text: string][]): boolean {
      const bad = checks.find(([, ok]) => !ok);
      setFailed(bad ? { field: bad[0], text: bad[2] } : null);
      if (bad) document.getElementById(bad[0])?.focus();
      return !bad;
    },
    field: (id: string) => fieldProblem(id, failed?.field === id ? failed.text : null),
    edited: (id: string) => {
      if (failed?.field === id) setFailed(null);
    },
    clear: () => setFailed(null),
  };
}

/** The paragraph under a form: every problem in words (when no field shows it), or the service's refusal. */
export function FormError({ text, testId }: { text?: string | null; testId?: string }) {
  if (!text) return null;
  return (
    <p role="alert" data-testid={testId} className="rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-800">
      {text}
    </p>
  );
}
