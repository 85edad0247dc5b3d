"use client";

import { useMutation } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { type Described, describeError, describeIssues, type Fields, type Issue } from "./error-text";

/** What the tRPC client's `mutate` accepts as options: the submission key travels in the operation context. */
type SendOptions = { context: { idempotencyKey: string } };
type Procedure<I, O> = { mutate: (input: I, opts: SendOptions) => Promise<O> };

type Handlers<I, O> = {
  /** How the form names its fields, for the error words. */
  fields?: Fields;
  /** The form's own checks, run before anything is sent (and before any confirmation, through `check`). */
  validate?: (input: I) => Issue[];
  onSuccess?: (data: O, input: I) => void;
  onError?: (error: Described, input: I) => void;
};

const IN_PROGRESS_RETRIES = 10;
const IN_PROGRESS_WAIT_MS = 500;

function newKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function inProgress(err: unknown): boolean {
  const data = (err as { data?: { code?: string; details?: { reason?: unknown } | null } } | null)?.data;
  return data?.code === "CONFLICT" && data.details?.reason === "idempotency_in_progress";
}

function formErrorOf(error: Described | null, fields: Fields | undefined): string | null {
  if (!error) return null;
  const keys = Object.keys(error.fields);
  if (!keys.length) return error.message;
  const rest = keys.filter((k) => !fields?.[k]).map((k) => error.fields[k]);
  return rest.length ? rest.join(" ") : null;
}

/**
 * One submission of a console form or button, safe to repeat. Each submission carries a key the
 * service honours (src/server/api/trpc.ts): a second click, or a retry after a lost answer,
 * replays the first answer instead of acting twice. The key is kept until the call succeeds or
 * the input changes, so a retry after a network error reuses it; a second submit while one is in
 * flight is ignored (a ref, since state updates arrive a render late), and while the first is
 * still running on the service the repeat waits for its answer.
 */
export function useSubmission<I, O>(procedure: Procedure<I, O>, handlers: Handlers<I, O> = {}) {
  const proc = useRef(procedure);
  proc.current = procedure;
  const on = useRef(handlers);
  on.current = handlers;
  const busy = useRef(false);
  const last = useRef<{ input: string; key: string } | null>(null);
  const [local, setLocal] = useState<{ issues: Issue[]; input: I } | null>(null);
  const [sent, setSent] = useState<I | undefined>(undefined);

  const mutation = useMutation({
    mutationFn: async ({ input, key }: { input: I; key: string }) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await proc.current.mutate(input, { context: { idempotencyKey: key } });
        } catch (err) {
          if (attempt >= IN_PROGRESS_RETRIES || !inProgress(err)) throw err;
          await new Promise((r) => setTimeout(r, IN_PROGRESS_WAIT_MS));
        }
      }
    },
  });
  const { mutateAsync, reset: resetMutation } = mutation;

  const check = useCallback((input: I): boolean => {
    const issues = on.current.validate?.(input) ?? [];
    setLocal(issues.length ? { issues, input } : null);
    return issues.length === 0;
  }, []);

  const submit = useCallback(
    (input: I): void => {
      if (busy.current || !check(input)) return;
      busy.current = true;
      const json = JSON.stringify(input ?? null);
      if (last.current?.input !== json) last.current = { input: json, key: newKey() };
      setSent(input);
      mutateAsync({ input, key: last.current.key }).then(
        (data) => {
          busy.current = false;
          last.current = null;
          on.current.onSuccess?.(data, input);
        },
        (err: unknown) => {
          busy.current = false;
          on.current.onError?.(describeError(err, { fields: on.current.fields, input }), input);
        },
      );
    },
    [check, mutateAsync],
  );

  const reset = useCallback(() => {
    setLocal(null);
    resetMutation();
  }, [resetMutation]);

  const error: Described | null = local
    ? describeIssues(local.issues, { fields: handlers.fields, input: local.input })
    : mutation.error
      ? describeError(mutation.error, { fields: handlers.fields, input: sent })
      : null;

  return {
    submit,
    /** Runs the form's own checks and shows their words; true when the input may be sent (or confirmed). */
    check,
    reset,
    isPending: mutation.isPending,
    data: mutation.data,
    error,
    /** What no field of the form shows: the service's refusal, or words for a field the form did not name. */
    formError: formErrorOf(error, handlers.fields),
    /** The words for one field, keyed like `fields`. */
    fieldError: (key: string): string | undefined => error?.fields[key],
  };
}
