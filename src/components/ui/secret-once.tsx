import { CopyButton } from "./copy-button";

/**
 * A secret the service shows once (an API key, a webhook's or the request-signing secret): the
 * value in full, wrapped rather than cut, a copy button, and the warning that it is not shown
 * again. A dialog that already says so in its description leaves `warning` out.
 */
export function SecretOnce(props: { secret: string; warning?: React.ReactNode; copyLabel?: string; testId?: string; className?: string }) {
  return (
    <div className={`rounded-md border border-amber-300 bg-amber-50 p-3 text-sm${props.className ? ` ${props.className}` : ""}`}>
      {props.warning && <p className="font-medium text-amber-900">{props.warning}</p>}
      <div className={`flex items-center gap-2${props.warning ? " mt-2" : ""}`}>
        <code data-testid={props.testId} className="min-w-0 flex-1 break-all rounded bg-white p-2 text-xs">
          {props.secret}
        </code>
        <CopyButton value={props.secret} label={props.copyLabel ?? "Copy secret"} />
      </div>
    </div>
  );
}
