import * as billing from "../../services/billing";
import { BillingHistory, BillingInvoices } from "../../services/billing";
import { consoleProcedure, router } from "../trpc";

/**
 * The organization's plan, usage and payments (the same service functions as /v1/billing/*), for
 * admins: the plan and its payments are the organization's settings, and /v1 asks the `admin`
 * scope for upgrade and portal.
 */
export const billingRouter = router({
  overview: consoleProcedure("admin").query(({ ctx }) => billing.billingOverview(ctx.svc)),
  history: consoleProcedure("admin")
    .output(BillingHistory)
    .query(({ ctx }) => billing.usageHistory(ctx.svc)),
  upgrade: consoleProcedure("admin").mutation(({ ctx }) => billing.upgrade(ctx.svc)),
  portal: consoleProcedure("admin").mutation(({ ctx }) => billing.portal(ctx.svc)),
  invoices: consoleProcedure("admin")
    .output(BillingInvoices)
    .query(({ ctx }) => billing.listInvoices(ctx.svc)),
});
