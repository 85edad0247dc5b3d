import type { Metadata } from "next";
import Link from "next/link";
import { SiteFooter } from "@/components/marketing/site-footer";
import { SiteHeader } from "@/components/marketing/site-header";

export const metadata: Metadata = { title: "Data processing terms · Bind Identity" };

const SECTIONS: { id: string; title: string; body: React.ReactNode }[] = [
  {
    id: "roles",
    title: "Who is responsible",
    body: (
      <p>
        Your organization decides why and how its users are verified: it is the controller. Bind Identity processes personal data only on
        your instructions, given through the API and the console, to verify people, bind them to chain accounts, screen them and keep the
        audit log.
      </p>
    ),
  },
  {
    id: "what",
    title: "What we process",
    body: (
      <ul className="list-disc space-y-1.5 pl-5">
        <li>
          For each person: verification status and level, country, PEP and sanctions flags, a risk score, the provider&apos;s applicant id
          and a keyed hash of the identity attributes. To screen people again when sanctions and PEP lists change, we keep the verified
          name, date of birth and country, encrypted (AES-256-GCM), and never show them through the API. Document images and selfies stay at
          the identity provider; we do not store them.
        </li>
        <li>Email addresses and phone numbers your users prove with a one-time code; the codes themselves are stored only as hashes.</li>
        <li>Chain accounts, their bindings to people and the credentials we issue for them.</li>
        <li>
          Screening results (list versions, matches and scores) and AML cases with the evidence of each match (the verified name and birth
          date encrypted), their reviewers&apos; notes and timeline.
        </li>
        <li>Console members&apos; email addresses, and an audit log of every change with who made it and from which address.</li>
      </ul>
    ),
  },
  {
    id: "subprocessors",
    title: "Subprocessors",
    body: (
      <p>
        The identity verification providers configured for your deployment (Sumsub, Veriff, or both) receive what your users submit to them
        and return their decision. Where a deployment sends email or SMS codes, its configured email server or SMS provider receives the
        address or number and the message. A sandbox organization's verifications never leave the service.
      </p>
    ),
  },
  {
    id: "where",
    title: "Where data stays",
    body: (
      <p>
        In the PostgreSQL database of the deployment that serves your organization. Secrets we must read back are encrypted with
        AES-256-GCM; API keys, codes and tokens are stored as hashes. Data leaves the service only to the subprocessors above, to the
        webhook endpoints you register, and as the public chain transactions of account creation.
      </p>
    ),
  },
  {
    id: "deletion",
    title: "Deletion",
    body: (
      <p>
        Short-lived records expire on their own: one-time codes and proof tokens when they lapse, used request signatures after 10 minutes,
        finished webhook deliveries 30 days after their last update. Records of people, accounts and the audit log are kept while your
        organization uses the service, because the audit log must stay complete to be verifiable. When the agreement ends, we delete your
        organization&apos;s records on your written request; documents held by an identity provider are deleted under that provider&apos;s
        own terms.
      </p>
    ),
  },
];

/** A short, plain summary of our data processing terms: what the settings page's DPA card asks an admin to accept. */
export default function DpaPage() {
  return (
    <>
      <SiteHeader />
      <main id="main" className="mx-auto max-w-3xl px-4 py-12 sm:px-6 sm:py-16">
        <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">Legal</p>
        <h1 className="mt-2 text-3xl font-bold tracking-tight sm:text-4xl">Data processing terms</h1>
        <p className="mt-4 text-slate-700">
          A summary, in plain words, of how Bind Identity processes personal data for your organization. An admin accepts these terms once
          for the organization in the console&apos;s{" "}
          <Link href="/console/settings" className="font-medium text-indigo-700 underline underline-offset-2">
            settings
          </Link>
          ; the acceptance is recorded in the audit log with its time.
        </p>
        <div className="mt-10 space-y-8">
          {SECTIONS.map((s) => (
            <section key={s.id} aria-labelledby={`dpa-${s.id}`}>
              <h2 id={`dpa-${s.id}`} className="text-xl font-semibold">
                {s.title}
              </h2>
              <div className="mt-3 leading-relaxed text-slate-700">{s.body}</div>
            </section>
          ))}
        </div>
      </main>
      <SiteFooter />
    </>
  );
}
