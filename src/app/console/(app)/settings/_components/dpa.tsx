"use client";

import { fmtTime } from "@/components/ui/badge";
import { Confirm } from "@/components/ui/dialog";
import { Section } from "@/components/ui/section";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPCClient } from "@/trpc/react";
import { useSaved } from "./use-saved";

/** The data processing agreement: a link to its terms, and its acceptance once. */
export function Dpa({ acceptedAt }: { acceptedAt: string | null }) {
  const client = useTRPCClient();
  const saved = useSaved();
  const accept = useSubmission(client.tenant.acceptDpa, {
    onSuccess: saved.ok("Data processing agreement accepted"),
    onError: saved.fail("The DPA was not accepted"),
  });
  return (
    <Section title="Data processing agreement" id="dpa-h">
      <p className="mb-3 text-sm text-slate-600">
        What we process for your organization, our subprocessors, where data stays and how it is deleted:{" "}
        <a href="/legal/dpa" className="font-medium text-indigo-700 underline underline-offset-2">
          read the data processing terms
        </a>
        .
      </p>
      {acceptedAt ? (
        <p className="text-sm">Accepted on {fmtTime(acceptedAt)}.</p>
      ) : (
        <Confirm
          trigger={
            <button type="button" className="btn-primary">
              Accept the DPA
            </button>
          }
          title="Accept the data processing agreement?"
          description="This records acceptance for your organization, with the time and your address in the audit log."
          confirmLabel="Accept"
          destructive={false}
          onConfirm={() => accept.submit()}
        />
      )}
    </Section>
  );
}
