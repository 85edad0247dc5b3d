"use client";

import { TRPCClientError } from "@trpc/client";

export function LoadingRows({ rows = 4 }: { rows?: number }) {
  return (
    <div role="status" aria-live="polite" className="space-y-2 p-4">
      <span className="sr-only">Loading…</span>
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders that never reorder
        <div key={i} className="h-6 animate-pulse rounded bg-slate-100" />
      ))}
    </div>
  );
}

export function EmptyState({ children }: { children: React.ReactNode }) {
  return <div className="p-8 text-center text-sm text-slate-500">{children}</div>;
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const forbidden = error instanceof TRPCClientError && error.data?.code === "FORBIDDEN";
  return (
    <div role="alert" className="m-3 rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-800">
      <p className="font-medium">{forbidden ? "You do not have access to this." : "This could not be loaded."}</p>
      <p className="mt-1">{error instanceof Error ? error.message : "Something went wrong."}</p>
      {onRetry && !forbidden && (
        <button type="button" className="btn-secondary mt-3" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** A form's error in words, announced to screen readers; nothing when there is none. */
export function FormAlert({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-800">
      {error}
    </p>
  );
}
