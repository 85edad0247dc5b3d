"use client";

import { useQueryClient } from "@tanstack/react-query";
import type { Described } from "@/components/ui/error-text";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/trpc/react";

/** A settings panel's answers: a toast, and the settings read again (the header's organization too). */
export function useSaved() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  return {
    ok: (title: string) => () => {
      toast({ tone: "ok", title });
      void qc.invalidateQueries({ queryKey: trpc.tenant.settings.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.tenant.get.queryKey() });
    },
    fail: (title: string) => (err: Described) => toast({ tone: "error", title, body: err.message }),
  };
}
