import type { Account } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../../context";
import { assessRisk } from "../aml";

/**
 * The anti-abuse assessment that runs before a binding is written (recorded as a risk event of
 * kind `bind`) when the confirm names a device: its counts wait on the device's lock in a
 * transaction of their own (without a device, bind.ts reads them with the confirm's other reads).
 * Only `deny` refuses: `review` is the tenant's signal to look, not ours to block.
 */
export async function bindRiskCheck(ctx: ServiceContext, input: { account: Pick<Account, "did">; deviceFingerprint?: string }) {
  const assessment = await assessRisk(ctx.db, ctx, { deviceFingerprint: input.deviceFingerprint, subjectRef: input.account.did }, "bind");
  return { denied: assessment.decision === "deny", score: assessment.score };
}
