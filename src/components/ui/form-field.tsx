/**
 * Small pieces of a console form: a character counter beside a limited field, the words of a
 * field's error, and the form's error paragraph. Limited fields let people type past the limit:
 * the counter turns red and the form refuses to send, so nothing is cut silently.
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

export function FieldError({ id, text }: { id: string; text?: string }) {
  if (!text) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-700">
      {text}
    </p>
  );
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
