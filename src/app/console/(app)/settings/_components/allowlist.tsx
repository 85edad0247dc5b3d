"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Confirm } from "@/components/ui/dialog";
import type { Issue } from "@/components/ui/error-text";
import { fieldProblem } from "@/components/ui/form-field";
import { Section } from "@/components/ui/section";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { cidrContains, isCidr } from "./cidr";
import { useSaved } from "./use-saved";

const CIDR_FIELDS = {
  cidrs: {
    label: "range",
    words: (value: unknown) =>
      typeof value === "string" ? `Enter a CIDR such as 203.0.113.0/24 or a single address; ${value} is not one.` : undefined,
  },
};

/** The /v1 IP allowlist, with a question before a list that would lock out the caller's own address. */
export function Allowlist({ cidrs }: { cidrs: string[] }) {
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
  const cidrsField = fieldProblem("cidrs", save.fieldError("cidrs"));
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
        {...cidrsField.attrs}
        onChange={(e) => setText(e.target.value)}
        placeholder={"203.0.113.0/24\n2001:db8::/32"}
      />
      {cidrsField.line}
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
