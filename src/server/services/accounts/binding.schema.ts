import { z } from "zod";
import { AccountBindingCredential } from "./bind.schema";

/** GET /v1/bindings/{id}: a binding as it stands now, with the credential it was issued. */
export const BindingView = z
  .object({
    bindingId: z.string(),
    accountDid: z.string(),
    personDid: z.string(),
    bindingVcHash: z.string().describe("Hex SHA-256 of the credential in its JCS form, as in the bind answer"),
    status: z.enum(["active", "suspended", "revoked"]).describe("What the credential's status lists say"),
    suspendedFor: z
      .array(z.enum(["sanctions_flag", "key_changed"]))
      .optional()
      .describe("Only while suspended: the reasons that stand; each is lifted on its own"),
    createdAt: z.iso.datetime(),
    revokedAt: z.iso.datetime().nullable(),
    credential: AccountBindingCredential.describe("The AccountBinding credential issued at binding, exactly as the bind answer gave it"),
  })
  .meta({ id: "BindingView" });
