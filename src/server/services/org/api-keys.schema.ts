import { z } from "zod";
import { SCOPES } from "@/lib/scopes";

export const Scope = z.enum(SCOPES);

export const MintApiKeyInput = z.strictObject({
  name: z.string().trim().min(2).max(64),
  /** Omitted: every scope, including admin (the answer then carries scopeNotice). */
  scopes: z
    .array(Scope)
    .min(1)
    .max(SCOPES.length * 4)
    .optional(),
  /** Deactivated after the new key is minted, in the same transaction (rotation). */
  revokeKeyId: z.uuid().optional(),
});
export type MintApiKeyInput = z.output<typeof MintApiKeyInput>;

export const ApiKeyIdParams = z.object({ id: z.uuid() });

export const ApiKeyView = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(Scope),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});

export const ApiKeyList = z.object({ keys: z.array(ApiKeyView) });

export const MintedApiKey = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  /** The raw key: shown in this answer only, never stored. */
  apiKey: z.string(),
  scopes: z.array(Scope),
  revokedKeyId: z.uuid().nullable(),
  warning: z.string(),
  scopeNotice: z.string().optional(),
});

export const RevokedApiKey = z.object({ id: z.uuid(), revoked: z.literal(true), revokedAt: z.iso.datetime() });
