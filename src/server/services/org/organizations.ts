import { env } from "@/env";
import type { Plan } from "@/generated/prisma/enums.ts";
import { SCOPES } from "@/lib/scopes";
import type { Actor } from "../../context";
import { generatePassword, hashPassword } from "../../crypto/password";
import type { Db, Tx } from "../../db/client";
import { appendAudit } from "../audit";
import { insertApiKey } from "./api-keys";

export type ProvisionInput = { name: string; email: string; plan?: Plan };
export type Provisioned = { organizationId: string; apiKey: string; consolePassword: string; plan: Plan };

/**
 * Creates an organization with a full-access API key and a console password, both returned once.
 * Runs inside `tx` when given (checkout provisions inside its own transaction).
 */
export async function provisionOrganization(db: Db, input: ProvisionInput, actor: Actor, tx?: Tx): Promise<Provisioned> {
  const consolePassword = generatePassword();
  const consolePasswordHash = await hashPassword(consolePassword);
  const run = async (t: Tx): Promise<Provisioned> => {
    const plan = input.plan ?? "builder";
    const org = await t.organization.create({
      data: { name: input.name, environment: env().BI_ENV, plan, consolePasswordHash, contactEmail: input.email.toLowerCase() },
    });
    const { key, raw } = await insertApiKey(t, org.id, { name: "Initial key", scopes: SCOPES, createdBy: "system:provisioning" });
    await appendAudit(
      t,
      { orgId: org.id, actor },
      {
        action: "organization.created",
        subjectType: "organization",
        subject: org.id,
        data: { name: org.name, plan, environment: org.environment, apiKeyPrefix: key.prefix },
      },
    );
    return { organizationId: org.id, apiKey: raw, consolePassword, plan };
  };
  return tx ? run(tx) : db.$transaction(run);
}
