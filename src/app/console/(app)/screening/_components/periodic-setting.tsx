"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useMe } from "@/components/console/shell";
import { fmtTime } from "@/components/ui/badge";
import { FormError } from "@/components/ui/form-field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Frequency = RouterOutputs["screening"]["monitoring"]["frequency"];

const FREQUENCY_LABEL: Record<Frequency, string> = {
  off: "Off: only when a list changes",
  daily: "Daily: everyone against every list, once a UTC day",
  weekly: "Weekly: everyone against every list, once an ISO week",
};

/** How often everyone is re-screened against every list; admins change it, others read it. */
export function PeriodicSetting() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const me = useMe();
  const setting = useQuery(trpc.screening.monitoring.queryOptions());
  const [choice, setChoice] = useState<Frequency | null>(null);
  const save = useSubmission(client.screening.setMonitoring, {
    onSuccess: () => {
      toast({ tone: "ok", title: "Periodic re-screen saved" });
      setChoice(null);
      void qc.invalidateQueries({ queryKey: trpc.screening.monitoring.queryKey() });
    },
  });
  if (setting.error) return <ErrorState error={setting.error} onRetry={() => void setting.refetch()} />;
  if (!setting.data) return <LoadingRows rows={1} />;
  const current = setting.data.frequency;
  const admin = atLeast(me.role, "admin");
  const value = choice ?? current;
  return (
    <div className="card">
      <h3 className="text-sm font-medium" id="periodic-h">
        Periodic re-screen
      </h3>
      {admin ? (
        <form
          className="mt-2 flex flex-col gap-2 sm:flex-row sm:items-end"
          aria-labelledby="periodic-h"
          onSubmit={(e) => {
            e.preventDefault();
            save.submit({ frequency: value });
          }}
        >
          <div className="grow">
            <label htmlFor="frequency" className="label">
              Frequency
            </label>
            <select id="frequency" className="field" value={value} onChange={(e) => setChoice(e.target.value as Frequency)}>
              {(["off", "daily", "weekly"] as const).map((f) => (
                <option key={f} value={f}>
                  {FREQUENCY_LABEL[f]}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn-primary" disabled={save.isPending || value === current}>
            Save
          </button>
        </form>
      ) : (
        <p className="mt-1 text-sm" data-testid="periodic-readonly">
          {FREQUENCY_LABEL[current]}. Only an admin can change it.
        </p>
      )}
      <FormError text={save.formError} />
      {setting.data.updatedBy && (
        <p className="mt-1 text-xs text-slate-500">
          Last changed by {setting.data.updatedBy}, {fmtTime(setting.data.updatedAt)}.
        </p>
      )}
    </div>
  );
}
