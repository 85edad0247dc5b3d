import { Icon } from "./icons";

/**
 * The hero's picture: what a bound account looks like to anyone who checks it, an AccountBinding
 * credential summarised field by field (the shape of docs/api/contract-decisions.md §5).
 */
export function CredentialCard({ host }: { host: string }) {
  const rows = [
    ["Issuer", `did:web:${host}`],
    ["Person", `did:web:${host}:people:7d1c…e42a`],
    ["Account", "did:antelope:eos:alice.wallet"],
    ["KYC level", "basic-kyc"],
    ["Proof", "eddsa-jcs-2022 · Ed25519"],
  ] as const;
  return (
    <figure className="relative mx-auto w-full max-w-md">
      <div
        aria-hidden="true"
        className="absolute -inset-3 -z-10 rounded-3xl bg-gradient-to-br from-indigo-200/70 via-indigo-100/40 to-transparent blur-xl"
      />
      <div className="overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-xl shadow-indigo-900/10">
        <div className="flex items-center justify-between gap-3 border-b border-slate-100 bg-slate-50 px-5 py-3">
          <div className="min-w-0">
            <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Verifiable credential</p>
            <p className="truncate font-semibold text-slate-900">AccountBindingCredential</p>
          </div>
          <span className="inline-flex shrink-0 items-center gap-1 rounded-full bg-emerald-100 px-2.5 py-1 text-xs font-medium text-emerald-800">
            <Icon name="check" className="h-3.5 w-3.5" />
            Proof valid
          </span>
        </div>
        <dl className="divide-y divide-slate-100 px-5 text-sm">
          {rows.map(([k, v]) => (
            <div key={k} className="grid grid-cols-[6.5rem_1fr] gap-3 py-2.5">
              <dt className="text-slate-500">{k}</dt>
              <dd className="break-all font-mono text-[13px] text-slate-800">{v}</dd>
            </div>
          ))}
        </dl>
        <ol className="grid grid-cols-3 border-t border-slate-100 bg-indigo-50/60 text-center text-xs font-medium text-indigo-900">
          {(
            [
              ["person", "KYC review"],
              ["signature", "Wallet signature"],
              ["credential", "Credential"],
            ] as const
          ).map(([icon, label], i) => (
            <li key={label} className={`flex flex-col items-center gap-1 px-2 py-3 ${i > 0 ? "border-l border-indigo-100" : ""}`}>
              <Icon name={icon} className="h-5 w-5 text-indigo-600" />
              {label}
            </li>
          ))}
        </ol>
      </div>
      <figcaption className="mt-3 text-center text-xs text-slate-500">
        An example credential: anyone can check its proof against the issuer&apos;s published DID document.
      </figcaption>
    </figure>
  );
}
