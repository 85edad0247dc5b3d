"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { FormError } from "@/components/ui/form-field";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPCClient } from "@/trpc/react";

/** "Take next case": the oldest, highest-priority unassigned open case becomes the caller's, and its page opens. */
export function TakeNext() {
  const client = useTRPCClient();
  const router = useRouter();
  const [none, setNone] = useState(false);
  const next = useSubmission(client.aml.next, {
    onSuccess: (r) => {
      if (r.case) router.push(`/console/aml/${r.case.caseId}`);
      else setNone(true);
    },
  });
  return (
    <div className="flex flex-col items-stretch sm:items-end">
      <button
        type="button"
        className="btn-primary"
        disabled={next.isPending}
        onClick={() => {
          setNone(false);
          next.submit({});
        }}
      >
        Take next case
      </button>
      <p role="status" className={none ? "mt-2 text-sm text-slate-600 sm:max-w-xs sm:text-right" : "sr-only"}>
        {none ? "No unassigned open case is waiting: every open case already has someone working it." : ""}
      </p>
      {next.formError && (
        <div className="mt-2">
          <FormError text={next.formError} />
        </div>
      )}
    </div>
  );
}
