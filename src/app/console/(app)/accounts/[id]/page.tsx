"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { ActivityList, BackLink, Fact, Facts, Section } from "@/components/console/activity";
import { useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";

type Account = RouterOutputs["accounts"]["detail"];
type Binding = Account["allBindings"][number];
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

/** Saves a binding's AccountBinding credential as a JSON file, built in the browser from the read. */
function downloadCredential(account: string, b: Binding) {
  const blob = new Blob([JSON.stringify(b.credential, null, 2)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `credential-${account}-${b.bindingId}.json`;
  link.click();
  URL.revokeObjectURL(link.href);
}

function Body({ a }: { a: Account }) {
  const me = useMe();
  const canOpenPeople = atLeast(me.role, "operator");
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
        {a.allBindings.length === 0 ? (
          <p className="mt-2 text-sm text-slate-500">Not bound to a person yet.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100 text-sm">
            {a.allBindings.map((b) => (
              <li key={b.bindingId} className="py-3">
                <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
                  {canOpenPeople ? (
                    <Link href={`/console/people/${b.personId}`} className="font-medium text-indigo-700 hover:underline">
                      {b.personLabel}
                    </Link>
                  ) : (
                    <span className="font-medium">{b.personLabel}</span>
                  )}
                  {b.revokedAt ? <Badge tone="red">revoked {fmtTime(b.revokedAt)}</Badge> : <Badge tone="green">active</Badge>}
                  <button type="button" className="btn-secondary sm:ml-auto" onClick={() => downloadCredential(a.name, b)}>
                    Download credential
                  </button>
                </div>
                <p className="mt-1 break-all text-xs text-slate-500">
                  Bound {fmtTime(b.createdAt)} · credential hash {b.bindingVcHash.slice(0, 16)}…
                </p>
              </li>
            ))}
          </ul>
        )}
        <p className="mt-3 text-xs text-slate-500">
          The credential is a W3C verifiable credential signed by our issuer key; anyone can check it offline with{" "}
          <code>npm run vc:verify</code>.
        </p>
      </Section>
      <Section title="Activity">
        <ActivityList entries={a.audit} empty="No audit entries about this account." />
      </Section>
    </div>
  );
}
