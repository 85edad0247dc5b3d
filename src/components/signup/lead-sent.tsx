import { CopyRow } from "./signup-ui";

/** Institutional: the lead is stored; what happens next, and that nothing was charged or issued. */
export function LeadSent({
  emailMasked,
  organizationName,
  sessionId,
  onStartBuilder,
}: {
  emailMasked?: string;
  organizationName: string;
  sessionId?: string;
  onStartBuilder: () => void;
}) {
  return (
    <section aria-labelledby="lead-title" className="space-y-5">
      <div>
        <h2 id="lead-title" className="text-xl font-semibold tracking-tight">
          Your request reached our sales team
        </h2>
        <p className="mt-1 text-sm text-slate-600" data-testid="lead-sent">
          Thank you. We have your request for {organizationName.trim() || "your organization"} on the Institutional plan.
        </p>
      </div>
      <div>
        <h3 className="text-sm font-semibold text-slate-900">What happens next</h3>
        <ol className="mt-2 list-decimal space-y-2 pl-5 text-sm text-slate-700">
          <li>
            Our sales team replies to your verified work email, <span className="font-medium text-slate-900">{emailMasked}</span>, to agree
            volumes, pricing and the contract.
          </li>
          <li>Nothing has been charged, and no API key has been issued: your organization is set up once the contract is agreed.</li>
        </ol>
      </div>
      {sessionId ? <CopyRow label="Your reference" value={sessionId} testId="lead-reference" copyLabel="Copy reference" /> : null}
      <div className="rounded-md border border-slate-200 bg-slate-50 p-4 text-sm text-slate-700">
        <p className="font-medium text-slate-900">Want to build in the meantime?</p>
        <p className="mt-1">Builder is free and gives you a working key in a minute, so your team can start integrating while we talk.</p>
        <button type="button" className="btn-secondary mt-3" onClick={onStartBuilder}>
          Start a free Builder signup
        </button>
      </div>
    </section>
  );
}
