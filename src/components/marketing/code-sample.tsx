import { CopyButton } from "@/components/ui/copy-button";

/**
 * The landing page's request: a free account created with an API key. The body holds only fields
 * of FreeAccountInput (src/server/services/accounts/accounts.schema.ts); the key is a valid
 * PUB_K1 public key, so the request works as shown (e2e/public-pages.spec.ts sends it).
 */
const BODY = {
  ownerPublicKey: "PUB_K1_6MRyAjQq8ud7hVNYcfnVPJqcVpscN5So8BhtHuGYqET5BoDq63",
  preferredName: "alice.wallet",
};

/** The answer, shortened to the fields a reader needs first (FreeAccountCreated has more). */
const ANSWER = `HTTP/1.1 201 Created

{
  "accountDid": "did:antelope:eos:alice.wallet",
  "name": "alice.wallet",
  "chain": "eos",
  "lifecycle": "provisional",
  "transactionId": "…",
  …
}`;

export function CodeSample({ origin }: { origin: string }) {
  const body = JSON.stringify(BODY, null, 2)
    .split("\n")
    .map((l, i) => (i === 0 ? l : `  ${l}`))
    .join("\n");
  const command = [
    `curl -X POST ${origin}/v1/accounts/free \\`,
    `  -H "Authorization: Bearer $BI_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -H "Idempotency-Key: signup-7f3a2c" \\`,
    `  -d '${body}'`,
  ].join("\n");
  return (
    <div className="overflow-hidden rounded-xl border border-slate-800 bg-slate-900 shadow-lg">
      <div className="flex items-center justify-between gap-3 border-b border-slate-800 px-4 py-2">
        <p className="font-mono text-xs text-slate-400">
          <span className="rounded bg-indigo-500/20 px-1.5 py-0.5 font-semibold text-indigo-300">POST</span> /v1/accounts/free
        </p>
        <CopyButton value={command} label="Copy request" />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a block that scrolls sideways must take keyboard focus to be scrolled without a mouse (WCAG 2.1.1) */}
      <pre tabIndex={0} className="overflow-x-auto p-4 text-[12.5px] leading-relaxed text-slate-100">
        <code data-testid="free-account-request">{command}</code>
      </pre>
      <div className="border-t border-slate-800 bg-slate-950/40">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a block that scrolls sideways must take keyboard focus to be scrolled without a mouse (WCAG 2.1.1) */}
        <pre tabIndex={0} className="overflow-x-auto p-4 text-[12.5px] leading-relaxed text-emerald-200/90">
          <code>{ANSWER}</code>
        </pre>
      </div>
    </div>
  );
}
