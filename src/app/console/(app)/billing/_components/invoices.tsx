"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import type { RouterOutputs } from "@/trpc/outputs";
import { useTRPC } from "@/trpc/react";

type Invoice = RouterOutputs["billing"]["invoices"]["invoices"][number];

/** An amount in the currency's minor unit (as the provider counts it) in the viewer's format. */
function money(minor: number, currency: string) {
  try {
    const fmt = new Intl.NumberFormat(undefined, { style: "currency", currency: currency.toUpperCase() });
    return fmt.format(minor / 10 ** (fmt.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

const STATUS_TONE: Record<string, "green" | "amber" | "red" | "slate"> = { paid: "green", open: "amber", uncollectible: "red" };

const cell = "flex items-baseline justify-between gap-4 py-1 sm:table-cell sm:px-3 sm:py-2.5";
const tag = "text-xs font-medium uppercase tracking-wide text-slate-500 sm:hidden";

/** The payment provider's invoices: a table on a laptop, one stacked card per invoice on a phone. */
export function Invoices() {
  const trpc = useTRPC();
  const list = useQuery(trpc.billing.invoices.queryOptions());
  const d = list.data;
  return (
    <section className="card" aria-labelledby="invoices-h">
      <h2 id="invoices-h" className="font-semibold">
        Invoices
      </h2>
      <p className="mt-1 text-sm text-slate-600">Issued by the payment provider for card payments; the newest 24.</p>
      <div className="mt-3">
        {list.error ? (
          <ErrorState error={list.error} onRetry={() => void list.refetch()} />
        ) : !d ? (
          <LoadingRows rows={2} />
        ) : d.invoices.length === 0 ? (
          <EmptyState>
            <span data-testid="invoices-empty">
              {d.reason?.message ??
                (d.provider === "sandbox"
                  ? "The sandbox takes no real payments, so it issues no invoices."
                  : "No invoices yet: the first is issued when the payment provider charges the card.")}
            </span>
          </EmptyState>
        ) : (
          <table className="block w-full text-sm sm:table">
            <caption className="sr-only">Invoices, newest first</caption>
            <thead className="hidden border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-500 sm:table-header-group">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Invoice
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Date
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  Amount
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Status
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  <span className="sr-only">Documents</span>
                </th>
              </tr>
            </thead>
            <tbody className="block space-y-3 sm:table-row-group sm:space-y-0 sm:divide-y sm:divide-slate-100">
              {d.invoices.map((inv) => (
                <InvoiceRow key={inv.id} inv={inv} />
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

function InvoiceRow({ inv }: { inv: Invoice }) {
  return (
    <tr className="block rounded-md border border-slate-200 px-3 py-2 sm:table-row sm:border-0 sm:p-0">
      <td className={cell}>
        <span className={tag}>Invoice</span>
        <span className="font-mono text-xs">{inv.number ?? inv.id}</span>
      </td>
      <td className={cell}>
        <span className={tag}>Date</span>
        <span>{new Date(inv.created).toLocaleDateString(undefined, { dateStyle: "medium" })}</span>
      </td>
      <td className={`${cell} sm:text-right`}>
        <span className={tag}>Amount</span>
        <span className="tabular-nums">{money(inv.amountDue, inv.currency)}</span>
      </td>
      <td className={cell}>
        <span className={tag}>Status</span>
        <Badge tone={STATUS_TONE[inv.status ?? ""] ?? "slate"}>{inv.status ?? "unknown"}</Badge>
      </td>
      <td className={`${cell} sm:text-right`}>
        <span className={tag}>Documents</span>
        <span className="flex gap-3">
          {inv.hostedInvoiceUrl && (
            <a href={inv.hostedInvoiceUrl} target="_blank" rel="noopener noreferrer" className="text-indigo-600 hover:underline">
              View<span className="sr-only"> invoice {inv.number ?? inv.id}</span>
            </a>
          )}
          {inv.pdfUrl && (
            <a href={inv.pdfUrl} target="_blank" rel="noopener noreferrer" className="text-indigo-600 hover:underline">
              PDF<span className="sr-only"> of invoice {inv.number ?? inv.id}</span>
            </a>
          )}
          {!inv.hostedInvoiceUrl && !inv.pdfUrl && <span className="text-slate-500">—</span>}
        </span>
      </td>
    </tr>
  );
}
