import { z } from "zod";

/** billing.history: one row per UTC day, oldest first, the days without traffic included as zeros. */
export const BillingHistory = z.object({
  days: z.array(
    z.object({
      day: z.iso.date().describe("UTC calendar day"),
      requests: z.int().describe("Authenticated /v1 requests counted against the plan quota"),
      verifications: z.int().describe("KYC sessions started"),
    }),
  ),
  totals: z.object({ requests: z.int(), verifications: z.int() }),
});

/** billing.invoices: the payment provider's invoices of this organization, or why there are none to show. */
export const BillingInvoices = z.object({
  provider: z.enum(["sandbox", "stripe"]),
  invoices: z.array(
    z.object({
      id: z.string(),
      number: z.string().nullable(),
      status: z.string().nullable(),
      amountDue: z.int().describe("In the currency's minor unit, as the provider counts it"),
      currency: z.string().describe("ISO 4217, lower case"),
      created: z.iso.datetime(),
      hostedInvoiceUrl: z.string().nullable(),
      pdfUrl: z.string().nullable(),
    }),
  ),
  reason: z
    .object({ code: z.literal("no_payment_customer"), message: z.string() })
    .nullable()
    .describe("Why the list is empty without asking the provider; null when the provider was asked"),
});
