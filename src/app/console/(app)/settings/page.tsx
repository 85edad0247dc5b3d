"use client";

import { useQuery } from "@tanstack/react-query";
import { RoleGate, useMe } from "@/components/console/shell";
import { PageHeader } from "@/components/ui/badge";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { atLeast } from "@/lib/roles";
import { useTRPC } from "@/trpc/react";
import { Allowlist } from "./_components/allowlist";
import { Attestations } from "./_components/attestations";
import { ConsolePassword } from "./_components/console-password";
import { Countries } from "./_components/countries";
import { Dpa } from "./_components/dpa";
import { Policy } from "./_components/policy";
import { Signing } from "./_components/signing";

export default function SettingsPage() {
  return (
    <RoleGate min="admin">
      <Settings />
    </RoleGate>
  );
}

/** The organization's settings, one panel each: every panel saves on its own. */
function Settings() {
  const trpc = useTRPC();
  const me = useMe();
  const settings = useQuery(trpc.tenant.settings.queryOptions());
  if (settings.error) return <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />;
  const s = settings.data;
  return (
    <>
      <PageHeader title="Settings" description={s ? `${s.name} · ${s.environment} · organization ${s.organizationId}` : undefined} />
      {!s ? (
        <LoadingRows />
      ) : (
        <div className="grid gap-6 lg:grid-cols-2">
          <Policy policy={s.policy} />
          <Signing enabled={s.signingEnabled} />
          <Allowlist cidrs={s.ipAllowlist.cidrs} />
          <Countries allowed={s.countryPolicy.allowedCountries} blocked={s.countryPolicy.blockedCountries} />
          <Dpa acceptedAt={s.dpaAcceptedAt} />
          <Attestations />
          {atLeast(me.role, "owner") && <ConsolePassword />}
        </div>
      )}
    </>
  );
}
