"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { WithDocLinks } from "@/components/console/docs-links";
import { fmtTime } from "@/components/ui/badge";
import { FormDialog } from "@/components/ui/form-dialog";
import { SecretOnce } from "@/components/ui/secret-once";
import { useSubmission } from "@/components/ui/use-submission";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Hook = RouterOutputs["webhooks"]["list"]["webhooks"][number];

const OVERLAPS = [
  { hours: 24, label: "24 hours (recommended)" },
  { hours: 72, label: "3 days" },
  { hours: 168, label: "7 days" },
  { hours: 1, label: "1 hour" },
  { hours: 0, label: "No overlap: the old secret stops at once" },
];

/** A new signing secret, shown once, with the old one still signing for the chosen overlap. */
export function RotateSecret({ hook, onClose }: { hook: Hook; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const [overlapHours, setOverlapHours] = useState(24);
  const rotate = useSubmission(client.webhooks.rotateSecret, {
    onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
  });
  const until = rotate.data?.previousSecretValidUntil;
  return (
    <FormDialog
      onOpenChange={(o) => !o && onClose()}
      title={rotate.data ? "New signing secret" : "Rotate the signing secret?"}
      description={
        rotate.data ? (
          <WithDocLinks text={rotate.data.warning} />
        ) : (
          "Deliveries carry a signature by the new secret, and by the old one until the overlap ends, so your receiver keeps verifying while you update it."
        )
      }
      submission={rotate}
      onSubmit={() => rotate.submit({ id: hook.id, body: { overlapHours } })}
      submitLabel="Rotate secret"
      pendingLabel="Rotating…"
      done={
        rotate.data && (
          <>
            <SecretOnce secret={rotate.data.secret} testId="rotated-secret" />
            <p className="text-sm text-slate-700">
              {until
                ? `The old secret keeps signing until ${fmtTime(until)}. Update your receiver before then.`
                : "The old secret no longer signs: update your receiver now."}
            </p>
          </>
        )
      }
    >
      <p className="break-all text-sm text-slate-700">{hook.url}</p>
      <div>
        <label htmlFor={`overlap-${hook.id}`} className="label">
          Old secret keeps signing for
        </label>
        <select id={`overlap-${hook.id}`} className="field" value={overlapHours} onChange={(e) => setOverlapHours(Number(e.target.value))}>
          {OVERLAPS.map((o) => (
            <option key={o.hours} value={o.hours}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
    </FormDialog>
  );
}
