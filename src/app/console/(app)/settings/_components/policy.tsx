"use client";

import { useState } from "react";
import { Section } from "@/components/ui/section";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPCClient } from "@/trpc/react";
import { useSaved } from "./use-saved";

type Flags = RouterOutputs["tenant"]["settings"]["policy"];

const FLAGS = [
  ["requireEmailProofBeforeFreeCreate", "Require a verified email before free create"],
  ["requirePhoneProofBeforeFreeCreate", "Require a verified phone before free create"],
  ["requireKycBeforeFreeCreate", "Require approved KYC before free create"],
  ["requireSecondApprovalToClearAml", "Four-eyes: a second member approves every AML clear"],
  ["walletCredentialCountry", "Wallet credentials may disclose the verified country"],
] as const;

/** The gates on free account creation and the four-eyes rule: each box saves on its own. */
export function Policy({ policy: saved_ }: { policy: Flags }) {
  const client = useTRPCClient();
  const saved = useSaved();
  // Shown at once and put back if the service refuses the change.
  const [policy, setPolicy] = useState(saved_);
  const update = useSubmission(client.tenant.updatePolicy, {
    onSuccess: (p) => {
      setPolicy(p);
      saved.ok("Policy saved")();
    },
    onError: (err) => {
      setPolicy(saved_);
      saved.fail("The policy was not saved")(err);
    },
  });
  return (
    <Section
      title="Policy"
      id="policy-h"
      description="Gates on free account creation, the AML four-eyes rule, and what wallet credentials may disclose."
    >
      <ul className="space-y-3">
        {FLAGS.map(([flag, label]) => (
          <li key={flag}>
            <label className="flex items-start gap-3 text-sm">
              <input
                type="checkbox"
                className="mt-0.5 h-4 w-4 rounded border-slate-300"
                checked={policy[flag]}
                disabled={update.isPending}
                onChange={(e) => {
                  setPolicy({ ...policy, [flag]: e.target.checked });
                  update.submit({ [flag]: e.target.checked });
                }}
              />
              <span>{label}</span>
            </label>
          </li>
        ))}
      </ul>
    </Section>
  );
}
