"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Badge, fmtTime } from "@/components/ui/badge";
import { Confirm } from "@/components/ui/dialog";
import { fieldProblem } from "@/components/ui/form-field";
import { Section } from "@/components/ui/section";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { useSaved } from "./use-saved";

/**
 * Publishing the organization's bindings into the on-chain attestation contract
 * (docs/api/guides/onchain.md): on or off, the country beside its tier or not, and how long a
 * published attestation holds. Each control saves on its own; the panel says when the deployment
 * has no contract to publish into.
 */
export function Attestations() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const saved = useSaved();
  const q = useQuery(trpc.tenant.attestations.queryOptions());
  const s = q.data;
  const [days, setDays] = useState("");
  // Shown at once when ticked, and put back if the service refuses the change.
  const [country, setCountry] = useState(false);
  // The field takes the saved value once, and after its own save: a refetch never overwrites typing.
  const daysLoaded = useRef(false);
  useEffect(() => {
    if (!s) return;
    if (!daysLoaded.current) setDays(String(s.validDays));
    daysLoaded.current = true;
    setCountry(s.publishCountry);
  }, [s]);
  const refresh = () => void qc.invalidateQueries({ queryKey: trpc.tenant.attestations.queryKey() });
  const set = useSubmission(client.tenant.setAttestations, {
    fields: { validDays: { label: "validity" } },
    onSuccess: (answer, input) => {
      if (input.validDays !== undefined) setDays(String(answer.validDays));
      refresh();
      saved.ok("On-chain attestations saved")();
    },
    onError: (err) => {
      if (s) setCountry(s.publishCountry);
      saved.fail("On-chain attestations were not saved")(err);
    },
  });
  const daysField = fieldProblem("attestation-days", set.fieldError("validDays"), "attestation-days-hint");
  const configured = !!s?.contract;
  return (
    <Section
      title="On-chain attestations"
      id="attestations-h"
      description="Publish each binding's status into the attestation contract, so contracts on the chain can check that an account belongs to a verified person. No name, birth date or document goes on chain."
    >
      {q.error && <p className="text-sm text-red-700">The settings could not be read: {q.error.message}</p>}
      {s && (
        <div className="space-y-4 text-sm">
          <p>
            Status: <Badge tone={s.enabled ? "green" : "slate"}>{s.enabled ? "publishing" : "off"}</Badge>
          </p>
          {configured ? (
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-slate-700">
              <dt className="text-slate-500">Contract</dt>
              <dd className="break-all font-mono">{s.contract}</dd>
              <dt className="text-slate-500">Signed by</dt>
              <dd className="break-all font-mono">{s.issuer}</dd>
              <dt className="text-slate-500">Organization number</dt>
              <dd>{s.orgNumber ? <span className="font-mono">{s.orgNumber}</span> : "assigned when first turned on"}</dd>
              <dt className="text-slate-500">Waiting to publish</dt>
              <dd>
                {s.pending} account{s.pending === 1 ? "" : "s"}
                {s.lastPublishedAt ? ` · last published ${fmtTime(s.lastPublishedAt)}` : ""}
              </dd>
            </dl>
          ) : (
            <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-amber-900">
              This deployment has no attestation contract configured, so nothing can be published. Its operator sets ATTESTATION_CONTRACT
              and the issuer's key.
            </p>
          )}
          <Confirm
            trigger={
              <button type="button" className="btn-primary" disabled={!configured || set.isPending}>
                {s.enabled ? "Stop publishing" : "Publish on chain"}
              </button>
            }
            title={s.enabled ? "Stop publishing on chain?" : "Publish the organization's bindings on chain?"}
            description={
              s.enabled
                ? "Every row the organization published is removed from the contract; contracts that check it will refuse your users."
                : "Each bound account gets a row in the attestation contract with its level, status, expiry and pairwise id, kept in step with every change."
            }
            confirmLabel={s.enabled ? "Stop publishing" : "Publish"}
            onConfirm={() => set.submit({ enabled: !s.enabled })}
          />
          <label className="flex items-start gap-3">
            <input
              type="checkbox"
              className="mt-0.5 h-4 w-4 rounded border-slate-300"
              checked={country}
              disabled={!configured || set.isPending}
              onChange={(e) => {
                setCountry(e.target.checked);
                set.submit({ publishCountry: e.target.checked });
              }}
            />
            <span>Publish the person's country beside its tier</span>
          </label>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              set.submit({ validDays: Number(days) });
            }}
          >
            <div>
              <label htmlFor="attestation-days" className="label">
                Valid for (days)
              </label>
              <input
                id="attestation-days"
                className="field w-32"
                inputMode="numeric"
                value={days}
                disabled={!configured}
                onChange={(e) => {
                  setDays(e.target.value);
                  if (daysField.attrs["aria-invalid"]) set.reset();
                }}
                {...daysField.attrs}
              />
            </div>
            <button type="submit" className="btn-secondary" disabled={!configured || set.isPending || days === String(s.validDays)}>
              Save
            </button>
            <p id="attestation-days-hint" className="w-full text-xs text-slate-500">
              From the binding's time; 1 to 3650 days.
            </p>
            {daysField.line}
          </form>
        </div>
      )}
    </Section>
  );
}
