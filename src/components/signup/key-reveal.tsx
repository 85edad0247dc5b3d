"use client";

import { useEffect, useRef } from "react";
import { CopyRow } from "./signup-ui";

export type Secrets = { apiKey: string; consolePassword: string; organizationId: string };

function SignInHelp({ organizationId }: { organizationId: string }) {
  return (
    <div className="rounded-md border border-slate-200 bg-slate-50 p-4 text-sm text-slate-700">
      <p className="font-medium text-slate-900">Next: sign in to the console</p>
      <p className="mt-1">
        Sign in with the organization ID <code className="break-all font-mono text-xs">{organizationId}</code>, your work email and the
        console password. There you can add colleagues, mint and revoke API keys, and read the audit log.
      </p>
      <a href={`/console/sign-in?organization=${encodeURIComponent(organizationId)}`} className="btn-primary mt-3">
        Sign in to the console
      </a>
    </div>
  );
}

/**
 * The one showing of a new organization's API key and console password. They live in memory only:
 * the stored signup already says "revealed", so a reload shows {@link ShownOnce} instead.
 */
export function KeyReveal({ secrets }: { secrets: Secrets }) {
  // The plan step was long: on a phone the page would stay scrolled past the secrets. Land on the
  // result's heading, below the sticky site header (scroll-mt), with focus for screen readers.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: "start" });
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section aria-labelledby="reveal-title" className="space-y-5">
      <div>
        <h2 id="reveal-title" ref={heading} tabIndex={-1} className="scroll-mt-20 text-xl font-semibold tracking-tight outline-none">
          Your organization is ready
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          Copy both secrets into your password manager or secret store before you leave this page.
        </p>
      </div>
      <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900">
        <p className="font-semibold">Store them now: they will not be shown again.</p>
        <p className="mt-1">
          They are shown once and cannot be recovered: reloading or leaving this page hides them for good, and we keep no copy we could show
          you again.
        </p>
      </div>
      <CopyRow label="API key" value={secrets.apiKey} testId="api-key" copyLabel="Copy API key" />
      <CopyRow label="Console password" value={secrets.consolePassword} testId="console-password" copyLabel="Copy password" />
      <CopyRow label="Organization ID" value={secrets.organizationId} testId="organization-id" copyLabel="Copy ID" />
      <div className="text-sm text-slate-700">
        <p className="font-medium text-slate-900">Try the key</p>
        <pre className="mt-1 overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">
          {`curl -H "Authorization: Bearer $BI_API_KEY" \\\n  ${typeof window === "undefined" ? "" : window.location.origin}/v1/tenant`}
        </pre>
      </div>
      <SignInHelp organizationId={secrets.organizationId} />
    </section>
  );
}

/** After the one showing (a reload, or a key shown elsewhere): what to do instead. */
export function ShownOnce({ organizationId, onRestart }: { organizationId?: string; onRestart: () => void }) {
  return (
    <section aria-labelledby="shown-title" className="space-y-5">
      <div>
        <h2 id="shown-title" className="text-xl font-semibold tracking-tight">
          Your key was shown once
        </h2>
        <p className="mt-1 text-sm text-slate-600" data-testid="shown-once">
          Your organization exists, and its API key and console password were shown once. For your safety we do not keep a copy we could
          show again.
        </p>
      </div>
      <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
        <li>If you stored them, you are set: use the key from your backend and the password to sign in.</li>
        <li>
          If the API key is lost, sign in to the console and mint a new one under <span className="font-medium">API keys</span>; revoke the
          old one there too.
        </li>
      </ul>
      {organizationId ? (
        <>
          <CopyRow label="Organization ID" value={organizationId} testId="organization-id" copyLabel="Copy ID" />
          <SignInHelp organizationId={organizationId} />
        </>
      ) : (
        <a href="/console/sign-in" className="btn-primary">
          Sign in to the console
        </a>
      )}
      <button type="button" className="text-sm font-medium text-indigo-700 underline underline-offset-2" onClick={onRestart}>
        Start another signup
      </button>
    </section>
  );
}
