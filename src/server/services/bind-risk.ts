import type { Account, Person } from "@/generated/prisma/client.ts";
import type { ServiceContext } from "../context";

/** The anti-abuse assessment that runs before a binding is written. */
export async function bindRiskCheck(_ctx: ServiceContext, _input: { account: Account; person: Person; deviceFingerprint?: string }) {
  return { denied: false, score: 0 };
}
