"use client";

import { useQuery } from "@tanstack/react-query";
import { RoleGate } from "@/components/console/shell";
import { PageHeader } from "@/components/ui/badge";
import { ErrorState } from "@/components/ui/states";
import { useTRPC } from "@/trpc/react";
import { Diff } from "./_components/diff";
import { Monitoring } from "./_components/monitoring";
import { Upload } from "./_components/upload";
import { Versions } from "./_components/versions";

export default function ScreeningPage() {
  return (
    <RoleGate min="compliance_officer">
      <Screening />
    </RoleGate>
  );
}

/** The lists' versions, what changed between two of them, the re-screens that follow, and the organization's own list. */
function Screening() {
  const trpc = useTRPC();
  const versions = useQuery(trpc.screening.listVersions.queryOptions({ limit: "200" }));
  if (versions.error) return <ErrorState error={versions.error} onRetry={() => void versions.refetch()} />;
  return (
    <>
      <PageHeader
        title="Screening"
        description="The sanctions and PEP lists your people are screened against, what changed between their versions, and the re-screens that follow."
      />
      <div className="space-y-6">
        <Versions versions={versions.data?.versions} isLoading={versions.isLoading} />
        {versions.data && <Diff versions={versions.data.versions} />}
        <Monitoring />
        <Upload />
      </div>
    </>
  );
}
