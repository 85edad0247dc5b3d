"use client";

import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { ActivityList, BackLink, Fact, Facts, Section } from "@/components/console/activity";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";
import { Bindings } from "./_components/bindings";

type Account = RouterOutputs["accounts"]["detail"];
const TONE = { provisional: "amber", bound: "indigo", unlocked: "green", suspended: "red" } as const;

export default function AccountPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const q = useQuery(trpc.accounts.detail.queryOptions({ did: decodeURIComponent(id) }));
  const a = q.data;
  return (
    <>
      <BackLink href="/console/accounts" label="Accounts" />
      <PageHeader
        title={a ? a.name : "Account"}
        description="A chain account created through this organization. Contacts are shown masked, as the read API shows them."
      />
      {q.error && <ErrorState error={q.error} onRetry={() => void q.refetch()} />}
      {q.isLoading && <LoadingRows rows={6} />}
      {a && <Body a={a} />}
    </>
  );
}

function Body({ a }: { a: Account }) {
  const k = a.contacts;
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Section title="Account">
        <Facts>
          <Fact label="Lifecycle">
            <Badge tone={TONE[a.lifecycle]}>{a.lifecycle}</Badge>
          </Fact>
          {a.lifecycleBeforeSuspend && <Fact label="Before suspension">{a.lifecycleBeforeSuspend}</Fact>}
          <Fact label="Chain">{a.chain}</Fact>
          <Fact label="Name">
            <span className="font-mono">{a.name}</span>
          </Fact>
          <Fact label="Created">{fmtTime(a.createdAt)}</Fact>
          <Fact label="Updated">{fmtTime(a.updatedAt)}</Fact>
          <Fact label="DID">
            <span className="flex items-center gap-2">
              <span className="break-all font-mono text-xs">{a.accountDid}</span>
              <CopyButton value={a.accountDid} label="Copy DID" />
            </span>
          </Fact>
        </Facts>
      </Section>
      <Section title="Contacts and keys">
        <Facts>
          <Fact label="Email">{k.email ? `${k.email}${k.emailVerified ? " (verified)" : ""}` : "—"}</Fact>
          <Fact label="Phone">{k.phone ? `${k.phone}${k.phoneVerified ? " (verified)" : ""}` : "—"}</Fact>
          <Fact label="Owner key">
            <span className="break-all font-mono text-xs">{a.ownerPublicKey}</span>
          </Fact>
          <Fact label="Active key">
            <span className="break-all font-mono text-xs">{a.activePublicKey}</span>
          </Fact>
        </Facts>
      </Section>
      <Section title="Bindings">
        <Bindings a={a} />
        <p className="mt-3 text-xs text-slate-500">
          The credential is a W3C verifiable credential signed by our issuer key, with its revocation and suspension published in status
          lists; anyone can check both with <code>npm run vc:verify</code>.
        </p>
      </Section>
      <Section title="Activity">
        <ActivityList entries={a.audit} empty="No audit entries about this account." />
      </Section>
    </div>
  );
}
