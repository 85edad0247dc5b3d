"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { RoleGate, signOutNow, useMe } from "@/components/console/shell";
import { Badge, fmtTime, PageHeader } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { Confirm } from "@/components/ui/dialog";
import type { Described, Issue } from "@/components/ui/error-text";
import { FieldError, FormError } from "@/components/ui/form-field";
import { Section } from "@/components/ui/section";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { atLeast } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { cidrContains, isCidr } from "./_components/cidr";

const FLAGS = [
  ["requireEmailProofBeforeFreeCreate", "Require a verified email before free create"],
  ["requirePhoneProofBeforeFreeCreate", "Require a verified phone before free create"],
  ["requireKycBeforeFreeCreate", "Require approved KYC before free create"],
  ["requireSecondApprovalToClearAml", "Four-eyes: a second member approves every AML clear"],
] as const;

export default function SettingsPage() {
  return (
    <RoleGate min="admin">
      <Settings />
    </RoleGate>
  );
}

function useSaved() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  return {
    ok: (title: string) => () => {
      toast({ tone: "ok", title });
      void qc.invalidateQueries({ queryKey: trpc.tenant.settings.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.tenant.get.queryKey() });
    },
    fail: (title: string) => (err: Described) => toast({ tone: "error", title, body: err.message }),
  };
}

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
          {atLeast(me.role, "owner") && <ConsolePassword />}
        </div>
      )}
    </>
  );
}

type Flags = RouterOutputs["tenant"]["settings"]["policy"];

const CIDR_FIELDS = {
  cidrs: {
    label: "range",
    words: (value: unknown) =>
      typeof value === "string" ? `Enter a CIDR such as 203.0.113.0/24 or a single address; ${value} is not one.` : undefined,
  },
};

const countryWords = (value: unknown) =>
  typeof value === "string" ? `${value} is not a country code: use two letters such as GH or KE.` : undefined;
const COUNTRY_FIELDS = {
  allowedCountries: { label: "allowed countries", words: countryWords },
  blockedCountries: { label: "blocked countries", words: countryWords },
};

const PASSWORD_FIELDS = { currentPassword: { label: "current password" }, newPassword: { label: "new password" } };

function Policy({ policy: saved_ }: { policy: Flags }) {
  const client = useTRPCClient();
  const saved = useSaved();
  // Shown at once and put back if the service refuses the change.
  const [policy, setPolicy] = useState(saved_);
  const update = useSubmission(client.tenant.updatePolicy, {
    onSuccess: (p) => {
      setPolicy(p);
      saved.ok("Policy saved")();
    },
    onError: (err) => {
      setPolicy(saved_);
      saved.fail("The policy was not saved")(err);
    },
  });
  return (
    <Section title="Policy" id="policy-h" description="Gates on free account creation and the AML four-eyes rule.">
      <ul className="space-y-3">
        {FLAGS.map(([flag, label]) => (
          <li key={flag}>
            <label className="flex items-start gap-3 text-sm">
              <input
                type="checkbox"
                className="mt-0.5 h-4 w-4 rounded border-slate-300"
                checked={policy[flag]}
                disabled={update.isPending}
                onChange={(e) => {
                  setPolicy({ ...policy, [flag]: e.target.checked });
                  update.submit({ [flag]: e.target.checked });
                }}
              />
              <span>{label}</span>
            </label>
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Signing({ enabled }: { enabled: boolean }) {
  const client = useTRPCClient();
  const saved = useSaved();
  const enable = useSubmission(client.tenant.enableSigning, {
    onSuccess: saved.ok("Signing is on"),
    onError: saved.fail("Signing was not enabled"),
  });
  const disable = useSubmission(client.tenant.disableSigning, {
    onSuccess: saved.ok("Signing is off"),
    onError: saved.fail("Signing was not disabled"),
  });
  return (
    <Section
      title="Request signing"
      id="signing-h"
      description="When on, every /v1 call must carry X-BI-Timestamp and an HMAC X-BI-Signature made with the signing secret."
    >
      <p className="mb-3 text-sm">
        Status: <Badge tone={enabled ? "green" : "slate"}>{enabled ? "on" : "off"}</Badge>
      </p>
      {/* The secret shown once, while it is the one in force: turning signing off discards it. */}
      {enable.data && enabled && (
        <div className="mb-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
          <p className="font-medium text-amber-900">{enable.data.warning}</p>
          <div className="mt-2 flex items-center gap-2">
            <code className="min-w-0 flex-1 break-all rounded bg-white p-2 text-xs">{enable.data.signingSecret}</code>
            <CopyButton value={enable.data.signingSecret} label="Copy secret" />
          </div>
        </div>
      )}
      <div className="flex flex-wrap gap-2">
        <Confirm
          trigger={
            <button type="button" className="btn-primary">
              {enabled ? "Rotate secret" : "Turn signing on"}
            </button>
          }
          title={enabled ? "Rotate the signing secret?" : "Turn request signing on?"}
          description="Unsigned calls, and calls signed with an older secret, answer 401 from the next request. Update your backends right after."
          confirmLabel={enabled ? "Rotate" : "Turn on"}
          onConfirm={() => enable.submit()}
        />
        {enabled && (
          <Confirm
            trigger={
              <button type="button" className="btn-secondary">
                Turn off
              </button>
            }
            title="Turn request signing off?"
            description="Calls are then accepted without a signature, and the secret is discarded."
            confirmLabel="Turn off"
            onConfirm={() => disable.submit()}
          />
        )}
      </div>
    </Section>
  );
}

function Allowlist({ cidrs }: { cidrs: string[] }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const saved = useSaved();
  const ip = useQuery(trpc.tenant.clientIp.queryOptions());
  const [text, setText] = useState(cidrs.join("\n"));
  const save = useSubmission(client.tenant.setIpAllowlist, {
    fields: CIDR_FIELDS,
    validate: (input) => input.cidrs.flatMap((c, i): Issue[] => (isCidr(c) ? [] : [{ path: ["cidrs", String(i)], code: "custom" }])),
    onSuccess: saved.ok("Allowlist saved"),
    onError: saved.fail("The allowlist was not saved"),
  });
  const list = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const mine = ip.data?.clientIp;
  // Entries are checked before anything else: a typo is not a lock-out and is never confirmed as one.
  const wellFormed = list.every(isCidr);
  // The page is not the API, but an admin who pastes only their office range usually also calls /v1 from here.
  const locksOut = wellFormed && !!mine && list.length > 0 && !list.some((c) => cidrContains(c, mine));
  const submit = () => save.submit({ cidrs: list });
  return (
    <Section
      title="IP allowlist"
      id="allowlist-h"
      description="When set, /v1 calls from other addresses answer 403. One CIDR or address per line; empty removes the allowlist."
    >
      <p className="mb-2 text-sm text-slate-600">
        Your address as this service sees it: <code data-testid="client-ip">{mine ?? "…"}</code>
      </p>
      <label htmlFor="cidrs" className="sr-only">
        Allowed ranges
      </label>
      <textarea
        id="cidrs"
        rows={4}
        className="field font-mono"
        value={text}
        aria-describedby="cidrs-error"
        aria-invalid={!!save.fieldError("cidrs")}
        onChange={(e) => setText(e.target.value)}
        placeholder={"203.0.113.0/24\n2001:db8::/32"}
      />
      <FieldError id="cidrs-error" text={save.fieldError("cidrs")} />
      {locksOut && (
        <p role="alert" className="mt-2 rounded-md bg-amber-50 p-2 text-sm text-amber-900">
          Your address {mine} is not on this list: calls from it would be refused.
        </p>
      )}
      {save.data?.warning && (
        <p role="status" className="mt-2 text-sm text-amber-800">
          {save.data.warning}
        </p>
      )}
      <div className="mt-3">
        {locksOut ? (
          <Confirm
            trigger={
              <button type="button" className="btn-danger">
                Save anyway
              </button>
            }
            title="Lock out your own address?"
            description={`${mine} is outside the new list, so /v1 calls from it will answer 403.`}
            confirmLabel="Save"
            onConfirm={submit}
          />
        ) : (
          <button type="button" className="btn-primary" onClick={submit} disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save allowlist"}
          </button>
        )}
      </div>
    </Section>
  );
}

function Countries({ allowed, blocked }: { allowed: string[]; blocked: string[] }) {
  const client = useTRPCClient();
  const saved = useSaved();
  const [a, setA] = useState(allowed.join(", "));
  const [b, setB] = useState(blocked.join(", "));
  const save = useSubmission(client.tenant.setCountryPolicy, {
    fields: COUNTRY_FIELDS,
    validate: (input) =>
      (["allowedCountries", "blockedCountries"] as const).flatMap((k) =>
        (input[k] ?? []).flatMap((c, i): Issue[] => (/^[A-Za-z]{2}$/.test(c) ? [] : [{ path: [k, String(i)], code: "invalid_format" }])),
      ),
    onSuccess: saved.ok("Country policy saved"),
  });
  const split = (s: string) =>
    s
      .split(/[\s,]+/)
      .map((x) => x.trim())
      .filter(Boolean);
  return (
    <Section
      title="Country policy"
      id="countries-h"
      description="Applied at bind. ISO 3166-1 alpha-2 codes; a code on both lists is blocked. Empty lists mean no restriction."
    >
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.submit({ allowedCountries: split(a), blockedCountries: split(b) });
        }}
      >
        <div>
          <label htmlFor="allowed" className="label">
            Allowed countries
          </label>
          <input
            id="allowed"
            className="field font-mono"
            aria-describedby="allowed-error"
            aria-invalid={!!save.fieldError("allowedCountries")}
            value={a}
            onChange={(e) => setA(e.target.value)}
            placeholder="GH, NG, KE"
          />
          <FieldError id="allowed-error" text={save.fieldError("allowedCountries")} />
        </div>
        <div>
          <label htmlFor="blocked" className="label">
            Blocked countries
          </label>
          <input
            id="blocked"
            className="field font-mono"
            aria-describedby="blocked-error"
            aria-invalid={!!save.fieldError("blockedCountries")}
            value={b}
            onChange={(e) => setB(e.target.value)}
            placeholder="KP, IR"
          />
          <FieldError id="blocked-error" text={save.fieldError("blockedCountries")} />
        </div>
        <FormError text={save.formError} />
        <button type="submit" className="btn-primary" disabled={save.isPending}>
          Save countries
        </button>
      </form>
    </Section>
  );
}

function Dpa({ acceptedAt }: { acceptedAt: string | null }) {
  const client = useTRPCClient();
  const saved = useSaved();
  const accept = useSubmission(client.tenant.acceptDpa, {
    onSuccess: saved.ok("Data processing agreement accepted"),
    onError: saved.fail("The DPA was not accepted"),
  });
  return (
    <Section title="Data processing agreement" id="dpa-h">
      <p className="mb-3 text-sm text-slate-600">
        What we process for your organization, our subprocessors, where data stays and how it is deleted:{" "}
        <a href="/legal/dpa" className="font-medium text-indigo-700 underline underline-offset-2">
          read the data processing terms
        </a>
        .
      </p>
      {acceptedAt ? (
        <p className="text-sm">Accepted on {fmtTime(acceptedAt)}.</p>
      ) : (
        <Confirm
          trigger={
            <button type="button" className="btn-primary">
              Accept the DPA
            </button>
          }
          title="Accept the data processing agreement?"
          description="This records acceptance for your organization, with the time and your address in the audit log."
          confirmLabel="Accept"
          destructive={false}
          onConfirm={() => accept.submit()}
        />
      )}
    </Section>
  );
}

function ConsolePassword() {
  const client = useTRPCClient();
  const toast = useToast();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const change = useSubmission(client.tenant.changePassword, {
    fields: PASSWORD_FIELDS,
    validate: (input) =>
      input.newPassword.length < 12 ? [{ path: ["newPassword"], code: "too_small", origin: "string", minimum: 12 }] : [],
    onSuccess: async () => {
      toast({ tone: "ok", title: "Password changed", body: "Every session is signed out." });
      await signOutNow("ended");
    },
  });
  return (
    <Section
      title="Console password"
      id="password-h"
      description="Shared by every member, with their own emailed code. Changing it signs everyone out, you included."
    >
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          change.submit({ currentPassword: current, newPassword: next });
        }}
      >
        <div>
          <label htmlFor="pw-current" className="label">
            Current password
          </label>
          <input
            id="pw-current"
            type="password"
            autoComplete="current-password"
            className="field"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            required
          />
        </div>
        <div>
          <label htmlFor="pw-new" className="label">
            New password (12 characters or more)
          </label>
          <input
            id="pw-new"
            type="password"
            autoComplete="new-password"
            aria-describedby="pw-new-error"
            aria-invalid={!!change.fieldError("newPassword")}
            className="field"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            required
          />
        </div>
        <FieldError id="pw-new-error" text={change.fieldError("newPassword")} />
        <FormError text={change.formError} />
        <button type="submit" className="btn-primary" disabled={change.isPending}>
          Change password
        </button>
      </form>
    </Section>
  );
}
