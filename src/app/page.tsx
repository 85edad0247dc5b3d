import Link from "next/link";

export default function Home() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Bind Identity</p>
      <h1 className="mt-2 text-4xl font-bold tracking-tight">Know who is behind every chain account.</h1>
      <p className="mt-4 text-lg text-slate-600">
        KYC through external providers, wallet-signed binding of a verified person to an Antelope account with a W3C verifiable credential,
        sanctions and PEP screening, and a tamper-evident audit log — without holding identity documents yourself.
      </p>
      <div className="mt-8 flex gap-3">
        <Link href="/docs" className="rounded-md bg-indigo-600 px-4 py-2 font-medium text-white hover:bg-indigo-500">
          API reference
        </Link>
        <a href="/v1/health" className="rounded-md border border-slate-300 px-4 py-2 font-medium hover:bg-white">
          Service health
        </a>
      </div>
    </main>
  );
}
