"use client";

import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { ActivityList, BackLink, Fact, Facts, Section } from "@/components/console/activity";
import { RoleGate } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";

type Key = RouterOutputs["apiKeys"]["get"];

export default function ApiKeyPage() {
  return (
    <RoleGate min="admin">
      <ApiKeyDetail />
    </RoleGate>
  );
}

function ApiKeyDetail() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const q = useQuery(trpc.apiKeys.get.queryOptions({ id: decodeURIComponent(id) }));
  const k = q.data;
  return (
    <>
      <BackLink href="/console/api-keys" label="API keys" />
      <PageHeader
        title={k ? `API key '${k.name}'` : "API key"}
        description="What this key may do and everything it did. The key itself is never stored, only a hash of it."
      />
      {q.error && <ErrorState error={q.error} onRetry={() => void q.refetch()} />}
      {q.isLoading && <LoadingRows rows={6} />}
      {k && <Body k={k} />}
    </>
  );
}

function Body({ k }: { k: Key }) {
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Section title="Key">
        <Facts>
          <Fact label="Status">{k.revokedAt ? <Badge tone="red">revoked</Badge> : <Badge tone="green">active</Badge>}</Fact>
          <Fact label="Name">{k.name}</Fact>
          <Fact label="Prefix">
            <span className="font-mono">{k.prefix}…</span>
          </Fact>
          <Fact label="Environment">{k.environment}</Fact>
          <Fact label="Created by">{k.createdByName}</Fact>
          <Fact label="Created">{fmtTime(k.createdAt)}</Fact>
          <Fact label="Last used">{k.lastUsedAt ? fmtTime(k.lastUsedAt) : "Never"}</Fact>
          <Fact label="Revoked">{fmtTime(k.revokedAt)}</Fact>
        </Facts>
      </Section>
      <Section title="Scopes">
        <div className="mt-3 flex flex-wrap gap-2">
          {k.scopes.map((s) => (
            <Badge key={s} tone={s === "admin" ? "amber" : "indigo"}>
              {s}
            </Badge>
          ))}
        </div>
        {k.scopes.includes("admin") && (
          <p className="mt-3 text-sm text-slate-600">This key holds the admin scope: it can manage members, keys and settings.</p>
        )}
      </Section>
      <div className="lg:col-span-2">
        <Section title="Activity">
          <ActivityList entries={k.audit} empty="This key has not been used for anything recorded yet." />
        </Section>
      </div>
    </div>
  );
}
