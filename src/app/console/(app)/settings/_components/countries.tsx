"use client";

import { useState } from "react";
import type { Issue } from "@/components/ui/error-text";
import { FormError, fieldProblem } from "@/components/ui/form-field";
import { Section } from "@/components/ui/section";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPCClient } from "@/trpc/react";
import { useSaved } from "./use-saved";

const countryWords = (value: unknown) =>
  typeof value === "string" ? `${value} is not a country code: use two letters such as GH or KE.` : undefined;
const COUNTRY_FIELDS = {
  allowedCountries: { label: "allowed countries", words: countryWords },
  blockedCountries: { label: "blocked countries", words: countryWords },
};

/** The two lists, each a field of codes separated by commas or spaces. */
const LISTS = [
  { key: "allowedCountries", id: "allowed", label: "Allowed countries", placeholder: "GH, NG, KE" },
  { key: "blockedCountries", id: "blocked", label: "Blocked countries", placeholder: "KP, IR" },
] as const;
type Key = (typeof LISTS)[number]["key"];

const split = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The countries allowed and blocked at bind. */
export function Countries({ allowed, blocked }: { allowed: string[]; blocked: string[] }) {
  const client = useTRPCClient();
  const saved = useSaved();
  const [text, setText] = useState<Record<Key, string>>({ allowedCountries: allowed.join(", "), blockedCountries: blocked.join(", ") });
  const save = useSubmission(client.tenant.setCountryPolicy, {
    fields: COUNTRY_FIELDS,
    validate: (input) =>
      LISTS.flatMap(({ key }) =>
        (input[key] ?? []).flatMap((c, i): Issue[] =>
          /^[A-Za-z]{2}$/.test(c) ? [] : [{ path: [key, String(i)], code: "invalid_format" }],
        ),
      ),
    onSuccess: saved.ok("Country policy saved"),
  });
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
          save.submit({ allowedCountries: split(text.allowedCountries), blockedCountries: split(text.blockedCountries) });
        }}
      >
        {LISTS.map(({ key, id, label, placeholder }) => {
          const problem = fieldProblem(id, save.fieldError(key));
          return (
            <div key={key}>
              <label htmlFor={id} className="label">
                {label}
              </label>
              <input
                id={id}
                className="field font-mono"
                {...problem.attrs}
                value={text[key]}
                onChange={(e) => setText({ ...text, [key]: e.target.value })}
                placeholder={placeholder}
              />
              {problem.line}
            </div>
          );
        })}
        <FormError text={save.formError} />
        <button type="submit" className="btn-primary" disabled={save.isPending}>
          Save countries
        </button>
      </form>
    </Section>
  );
}
