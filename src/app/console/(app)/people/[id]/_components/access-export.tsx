"use client";

import { useQueryClient } from "@tanstack/react-query";
import { Section } from "@/components/console/activity";
import { FormError } from "@/components/ui/form-field";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { downloadJson } from "@/lib/download-json";
import { personShortLabel } from "@/lib/person-label";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";

type Person = Pick<RouterOutputs["people"]["get"], "id" | "personDid">;

/**
 * The person page's access-request section, for compliance officers and up: downloads everything
 * held about the person, opened and signed (people.exportData, the twin of GET
 * /v1/people/{personDid}/export), to hand to them. Each export is an audit entry, so the button
 * is one submission: a double click downloads once.
 */
export function PersonAccessExport({ person }: { person: Person }) {
  const client = useTRPCClient();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const exp = useSubmission(client.people.exportData, {
    onSuccess: (doc) => {
      downloadJson(`person-${person.id}-export.json`, doc);
      toast({
        tone: "ok",
        title: `Data of ${personShortLabel(person.personDid)} exported`,
        body: "Signed like an audit export; npm run export:verify checks it.",
      });
      // The export is recorded in the person's activity.
      void qc.invalidateQueries({ queryKey: trpc.people.get.queryKey({ id: person.id }) });
    },
  });
  return (
    <Section title="Access request">
      <div className="mt-2 space-y-3 text-sm">
        <p className="text-slate-700">
          Everything held about this person, opened, in one signed JSON document to hand to them. AML cases, screenings and risk assessments
          are withheld and named in it.
        </p>
        <button type="button" className="btn-secondary select-none" disabled={exp.isPending} onClick={() => exp.submit({ id: person.id })}>
          {exp.isPending ? "Exporting…" : "Download the person's data"}
        </button>
        <FormError text={exp.formError} />
      </div>
    </Section>
  );
}
