"use client";

import { useRef, useState } from "react";

/**
 * One sign-in or invitation step at a time: `guarded(run)` ignores a second call while the first
 * is running (a double click sends once), clears the last error, and turns a failure into words
 * with `errorText`.
 */
export function useAuthStep(errorText: (err: unknown) => string) {
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);
  const [error, setError] = useState<string | null>(null);
  async function guarded(run: () => Promise<void>) {
    if (busyRef.current) return;
    busyRef.current = true;
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (err) {
      setError(errorText(err));
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  }
  return { busy, error, setError, guarded };
}
