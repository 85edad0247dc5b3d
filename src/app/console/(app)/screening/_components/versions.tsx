"use client";

import { useMemo } from "react";
import { Badge, fmtTime } from "@/components/ui/badge";
import { columnsFor, DataTable } from "@/components/ui/data-table";
import type { RouterOutputs } from "@/trpc/outputs";

export type Version = RouterOutputs["screening"]["listVersions"]["versions"][number];
export type Format = Version["format"];

const FORMAT_LABEL: Record<Format, string> = { ftm: "FtM JSON lines", ofac: "OFAC SDN CSV", labels: "Account labels" };

/** Every imported version of every list, global and the organization's own. */
export function Versions({ versions, isLoading }: { versions: Version[] | undefined; isLoading: boolean }) {
  const columns = useMemo(() => {
    const c = columnsFor<Version>();
    return [
      c.accessor("list", {
        header: "List",
        cell: (i) => (
          <span className="flex flex-wrap items-center gap-1.5">
            <code className="text-xs">{i.getValue()}</code>
            {i.row.original.scope === "organization" && <Badge tone="indigo">your organization</Badge>}
          </span>
        ),
      }),
      c.accessor((v) => FORMAT_LABEL[v.format], { id: "format", header: "Format" }),
      c.accessor("entryCount", { header: "Entries", cell: (i) => <span className="tabular-nums">{i.getValue().toLocaleString()}</span> }),
      c.accessor("importedAt", {
        header: "Imported",
        sortFn: "datetime",
        cell: (i) => <span className="whitespace-nowrap">{fmtTime(i.getValue())}</span>,
      }),
      c.accessor("importedBy", { header: "By", cell: (i) => <span className="break-all text-xs">{i.getValue()}</span> }),
      c.accessor((v) => (v.active ? "active" : "past"), {
        id: "active",
        header: "State",
        cell: (i) => (i.getValue() === "active" ? <Badge tone="green">active</Badge> : <Badge>past</Badge>),
      }),
    ];
  }, []);
  return (
    <section aria-labelledby="versions-h">
      <h2 id="versions-h" className="mb-2 font-semibold">
        List versions
      </h2>
      <DataTable
        label="List versions"
        columns={columns}
        data={versions}
        isLoading={isLoading}
        empty="No list has been imported yet."
        filterPlaceholder="Filter by list, format or who imported"
      />
    </section>
  );
}
