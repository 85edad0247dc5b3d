"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { describeError } from "@/components/ui/error-text";
import type { AppRouter } from "@/server/api/root";
import { consoleLinks } from "./links";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** A signed-out or deactivated member is sent back to sign-in, wherever the 401 came from. */
function onUnauthorized(err: unknown) {
  if (err instanceof TRPCClientError && err.data?.code === "UNAUTHORIZED" && typeof window !== "undefined") {
    window.location.assign(`/console/sign-in?ended=1`);
  }
}

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        retry: (count, err) => !(err instanceof TRPCClientError && err.data?.httpStatus < 500) && count < 2,
      },
    },
  });
}

export function TRPCReactProvider({ children }: { children: React.ReactNode }) {
  const [queryClient] = useState(() => {
    const qc = makeQueryClient();
    qc.getQueryCache().subscribe((e) => e.type === "updated" && e.action.type === "error" && onUnauthorized(e.action.error));
    qc.getMutationCache().subscribe((e) => e.type === "updated" && e.action.type === "error" && onUnauthorized(e.action.error));
    return qc;
  });
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: consoleLinks("/api/trpc") }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** The message to show for a failed call, in words (src/components/ui/error-text.ts). */
export function errorMessage(err: unknown): string {
  return describeError(err).message;
}
