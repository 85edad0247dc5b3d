import { httpBatchLink, httpLink, splitLink, type TRPCLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "@/server/api/root";

/**
 * The console client's links. A mutation sent with a submission key (src/components/ui/use-submission.ts)
 * goes alone, carrying the key as Idempotency-Key, since a batch has one set of headers for all its
 * calls; everything else is batched.
 */
export function consoleLinks(url: string, fetchImpl?: typeof fetch): TRPCLink<AppRouter>[] {
  return [
    splitLink({
      condition: (op) => op.type === "mutation" && typeof op.context.idempotencyKey === "string",
      true: httpLink({
        url,
        fetch: fetchImpl,
        transformer: superjson,
        headers: ({ op }) => ({ "idempotency-key": String(op.context.idempotencyKey) }),
      }),
      false: httpBatchLink({ url, fetch: fetchImpl, transformer: superjson }),
    }),
  ];
}
