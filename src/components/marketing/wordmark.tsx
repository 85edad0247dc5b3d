/** The Bind Identity mark (a link binding a key to a person, drawn in SVG) and name. */
export function Wordmark({ tone = "dark" }: { tone?: "dark" | "light" }) {
  return (
    <span className="inline-flex items-center gap-2">
      <svg viewBox="0 0 32 32" className="h-7 w-7 shrink-0" aria-hidden="true">
        <rect width="32" height="32" rx="8" className="fill-indigo-600" />
        <circle cx="12" cy="16" r="5.5" fill="none" stroke="white" strokeWidth="2.4" />
        <circle cx="20" cy="16" r="5.5" fill="none" stroke="white" strokeWidth="2.4" strokeOpacity="0.7" />
      </svg>
      <span className={`whitespace-nowrap text-base font-semibold tracking-tight ${tone === "dark" ? "text-slate-900" : "text-white"}`}>
        Bind Identity
      </span>
    </span>
  );
}
