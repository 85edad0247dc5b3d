import { z } from "zod";
import { parsePublicKey } from "../../providers/chain";

const publicKey = z
  .string()
  .max(200)
  .refine((s) => parsePublicKey(s) !== null, "must be a PUB_K1_, PUB_R1_ or legacy EOS public key");
export const AccountName = z
  .string()
  .regex(/^[a-z1-5.]{1,12}$/, "must match ^[a-z1-5.]{1,12}$")
  .refine((s) => !s.endsWith("."), "must not end with a dot");

export const FreeAccountInput = z.object({
  ownerPublicKey: publicKey,
  activePublicKey: publicKey.optional(),
  passkeyCredentialId: z.string().min(1).max(1024).optional(),
  deviceFingerprint: z.string().min(1).max(512).optional(),
  personDid: z.string().min(1).max(300).optional(),
  preferredName: AccountName.optional(),
  kycCreateToken: z.string().min(1).max(200).optional(),
  emailProofToken: z.string().min(1).max(200).optional(),
  phoneProofToken: z.string().min(1).max(200).optional(),
});
export type FreeAccountInput = z.infer<typeof FreeAccountInput>;

export const MaskedContacts = z.object({
  email: z.string().nullable(),
  emailVerified: z.boolean(),
  phone: z.string().nullable(),
  phoneVerified: z.boolean(),
});

export const AccountView = z.object({
  accountDid: z.string(),
  name: z.string(),
  chain: z.string(),
  lifecycle: z.enum(["provisional", "bound", "unlocked", "suspended"]),
  ownerPublicKey: z.string(),
  activePublicKey: z.string(),
  contacts: MaskedContacts,
  bindings: z.array(
    z.object({
      bindingId: z.string(),
      personDid: z.string(),
      bindingVcHash: z.string(),
      createdAt: z.iso.datetime(),
      status: z.enum(["active", "suspended"]).describe("What the credential's status list says: suspended while a reason stands"),
      suspendedFor: z.array(z.enum(["sanctions_flag", "key_changed"])),
    }),
  ),
  revokedBindings: z
    .array(
      z.object({
        bindingId: z.string(),
        personDid: z.string(),
        bindingVcHash: z.string(),
        createdAt: z.iso.datetime(),
        status: z.literal("revoked"),
        revokedAt: z.iso.datetime(),
        reason: z
          .string()
          .nullable()
          .describe("The reason given when it was revoked; null only for a binding revoked before reasons were kept"),
      }),
    )
    .optional()
    .describe("The account's revoked bindings, oldest first (GET /v1/accounts/{did}); `bindings` holds only those not revoked"),
  createdAt: z.iso.datetime(),
});

export const FreeAccountCreated = AccountView.extend({ transactionId: z.string() });

export const NameAvailableQuery = z.object({ name: z.string().min(1).max(12) });
export const NameAvailable = z.object({
  name: z.string(),
  available: z.boolean(),
  reason: z.enum(["TAKEN", "INVALID"]).optional(),
  message: z.string(),
});

export const AccountRef = z.object({ did: z.string().min(1).max(300) });
export const AccountDidInput = z.object({ accountDid: z.string().min(1).max(300) });

export const ListAccountsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  lifecycle: z.enum(["provisional", "bound", "unlocked", "suspended"]).optional(),
  before: z.iso.datetime().optional(),
});
