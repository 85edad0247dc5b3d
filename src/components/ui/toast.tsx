"use client";

import { Toast } from "radix-ui";
import { createContext, useCallback, useContext, useState } from "react";

type Note = { id: number; title: string; body?: string; tone: "ok" | "error" };
const ToastContext = createContext<(n: Omit<Note, "id">) => void>(() => undefined);

/** Radix toasts: announced to screen readers, dismissable with the keyboard (F8 jumps to them). */
export function ToastProvider({ children }: { children: React.ReactNode }) {
  const [notes, setNotes] = useState<Note[]>([]);
  const push = useCallback((n: Omit<Note, "id">) => setNotes((all) => [...all, { ...n, id: Date.now() + Math.random() }]), []);
  return (
    <ToastContext.Provider value={push}>
      <Toast.Provider swipeDirection="right" duration={5000}>
        {children}
        {notes.map((n) => (
          <Toast.Root
            key={n.id}
            type={n.tone === "error" ? "foreground" : "background"}
            onOpenChange={(open) => !open && setNotes((all) => all.filter((x) => x.id !== n.id))}
            className={`rounded-md border p-3 shadow-lg ${n.tone === "error" ? "border-red-200 bg-red-50 text-red-900" : "border-emerald-200 bg-emerald-50 text-emerald-900"}`}
          >
            <Toast.Title className="text-sm font-semibold">{n.title}</Toast.Title>
            {n.body && <Toast.Description className="mt-1 text-sm">{n.body}</Toast.Description>}
            <Toast.Close aria-label="Dismiss" className="absolute right-2 top-1 text-lg leading-none opacity-60 hover:opacity-100">
              ×
            </Toast.Close>
          </Toast.Root>
        ))}
        <Toast.Viewport className="toast-viewport fixed bottom-0 right-0 z-[60] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 [&>li]:relative" />
      </Toast.Provider>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);
