"use client";

import Link from "next/link";
import { Section } from "@/components/console/activity";
import { Badge, fmtTime } from "@/components/ui/badge";
import { personShortLabel } from "@/lib/person-label";
import type { RouterOutputs } from "@/trpc/outputs";
import { KYC_TONE } from "./kyc-tone";

type Duplicate = NonNullable<RouterOutputs["people"]["get"]["duplicate"]>;
type Other = Duplicate["people"][number];

/** What the match means, before the list of the other people. */
function lead({ match, people }: Duplicate): string {
  if (match === "document") return "Verified with the same identity document as:";
  const whom = people.length === 1 ? "the person below" : "the people below";
  return `Same name, birth date and nationality as ${whom}, with a different document — review before you rely on it.`;
}

/** When the other person was approved (or last reviewed, if they are no longer approved), in words. */
function reviewWords(o: Other): string {
  if (!o.approvedAt) return "not reviewed yet";
  return o.kycStatus === "approved" ? `approved on ${fmtTime(o.approvedAt)}` : `last reviewed on ${fmtTime(o.approvedAt)}`;
}

/**
 * The person page's warning, for compliance officers and up, that the person looks like other
 * people of the organization: the same identity document (the same human), or only the same name,
 * birth date and nationality (perhaps the same human). Each other person links to their page.
 */
export function PossibleDuplicate({ duplicate }: { duplicate: Duplicate }) {
  const sameDocument = duplicate.match === "document";
  return (
    <Section
      title="Possible duplicate"
      actions={<Badge tone={sameDocument ? "red" : "amber"}>{sameDocument ? "same document" : "same name and birth date"}</Badge>}
    >
      <p className="mt-2 text-sm text-slate-700">{lead(duplicate)}</p>
      <ul className="mt-2 divide-y divide-slate-100 text-sm">
        {duplicate.people.map((o) => (
          <li key={o.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
            <Link href={`/console/people/${o.id}`} className="font-medium text-indigo-700 hover:underline" title={o.personDid}>
              {personShortLabel(o.personDid)}
            </Link>
            {o.erased ? <Badge tone="slate">erased</Badge> : <Badge tone={KYC_TONE[o.kycStatus]}>{o.kycStatus.replace("_", " ")}</Badge>}
            <span className="text-xs text-slate-500">{reviewWords(o)}</span>
          </li>
        ))}
      </ul>
    </Section>
  );
}
