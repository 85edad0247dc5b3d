"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import { personIdOfDid, personShortLabel } from "@/lib/person-label";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";

type Person = RouterOutputs["people"]["list"]["people"][number];
type KycStatus = Person["kycStatus"];
const TONE = { not_started: "slate", pending: "amber", in_review: "amber", approved: "green", rejected: "red", retry: "amber" } as const;

export default function PeoplePage() {
  return (
    <RoleGate min="operator">
      <People />
    </RoleGate>
  );
}

function People() {
  const trpc = useTRPC();
  const [kycStatus, setKycStatus] = useState<KycStatus | "">("");
  const [flagged, setFlagged] = useState(false);
  const list = useQuery(
    trpc.people.list.queryOptions({ limit: 200, ...(kycStatus ? { kycStatus } : {}), ...(flagged ? { flagged: "true" as const } : {}) }),
  );
  const columns = useMemo(() => {
    const c = columnsFor<Person>();
    return [
      c.accessor((p) => `${personShortLabel(p.personDid)} ${p.personDid}`, {
        id: "person",
        header: "Person",
        cell: (i) => (
          <Link
            href={`/console/people/${personIdOfDid(i.row.original.personDid)}`}
            className="whitespace-nowrap font-medium text-indigo-700 hover:underline"
            title={i.row.original.personDid}
          >
            {personShortLabel(i.row.original.personDid)}
          </Link>
        ),
      }),
      c.accessor("kycStatus", { header: "KYC", cell: (i) => <Badge tone={TONE[i.getValue()]}>{i.getValue().replace("_", " ")}</Badge> }),
      c.accessor((p) => p.country ?? "", { id: "country", header: "Country", cell: (i) => i.getValue() || "—" }),
      c.accessor((p) => `${p.pepFlag ? "PEP " : ""}${p.sanctionsFlag ? "sanctions" : ""}`, {
        id: "flags",
        header: "Flags",
        cell: (i) => (
          <div className="flex gap-1">
            {i.row.original.sanctionsFlag && <Badge tone="red">sanctions</Badge>}
            {i.row.original.pepFlag && <Badge tone="amber">PEP</Badge>}
            {!i.getValue() && "—"}
          </div>
        ),
      }),
      c.accessor("riskScore", { header: "Risk" }),
      c.accessor("updatedAt", {
        header: "Updated",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
    ];
  }, []);
  return (
    <>
      <PageHeader
        title="People"
        description="KYC subjects of this organization, newest first. Names and documents stay with the KYC provider, so each person is named by a short form of their id; open one for the whole record."
      />
      <DataTable
        label="People"
        columns={columns}
        data={list.data?.people}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        empty="No people yet. They appear when your backend starts KYC."
        filterPlaceholder="Filter by person, DID or country"
        toolbar={
          <>
            <label htmlFor="kyc-status" className="sr-only">
              KYC status
            </label>
            <select
              id="kyc-status"
              className="field w-auto py-1"
              value={kycStatus}
              onChange={(e) => setKycStatus(e.target.value as KycStatus | "")}
            >
              <option value="">All KYC statuses</option>
              {(["not_started", "pending", "in_review", "approved", "rejected", "retry"] as const).map((s) => (
                <option key={s} value={s}>
                  {s.replace("_", " ")}
                </option>
              ))}
            </select>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={flagged} onChange={(e) => setFlagged(e.target.checked)} className="h-4 w-4" /> Flagged only
            </label>
          </>
        }
      />
    </>
  );
}
