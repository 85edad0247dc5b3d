"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";

type Business = RouterOutputs["organizations"]["list"]["businesses"][number];
const TONE: Record<string, "green" | "red" | "amber" | "slate"> = {
  approved: "green",
  rejected: "red",
  pending: "amber",
  in_review: "amber",
};

export default function OrganizationsPage() {
  return (
    <RoleGate min="operator">
      <Organizations />
    </RoleGate>
  );
}

function Organizations() {
  const trpc = useTRPC();
  const list = useQuery(trpc.organizations.list.queryOptions());
  const org = list.data?.organization;
  const columns = useMemo(() => {
    const c = columnsFor<Business>();
    return [
      c.accessor((b) => b.legalName ?? "", {
        id: "legalName",
        header: "Legal name",
        cell: (i) => <span className="font-medium">{i.getValue() || "—"}</span>,
      }),
      c.accessor((b) => b.registrationNumber ?? "", { id: "reg", header: "Registration", cell: (i) => i.getValue() || "—" }),
      c.accessor((b) => b.country ?? "", { id: "country", header: "Country", cell: (i) => i.getValue() || "—" }),
      c.accessor("status", {
        header: "KYB",
        cell: (i) => <Badge tone={TONE[i.getValue()] ?? "slate"}>{i.getValue().replace("_", " ")}</Badge>,
      }),
      c.accessor("provider", { header: "Provider" }),
      c.accessor("createdAt", {
        header: "Submitted",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
    ];
  }, []);
  return (
    <>
      <PageHeader
        title="Organizations"
        description={
          org ? (
            <>
              Your organization’s KYB status: <Badge tone={TONE[org.kybStatus] ?? "slate"}>{org.kybStatus.replace("_", " ")}</Badge>{" "}
              <span className="break-all font-mono text-xs">{org.organizationDid}</span>
            </>
          ) : (
            "KYB businesses submitted by this organization."
          )
        }
      />
      <DataTable
        label="KYB businesses"
        columns={columns}
        data={list.data?.businesses}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        empty="No businesses submitted for KYB yet."
        filterPlaceholder="Filter by name, number or country"
      />
    </>
  );
}
