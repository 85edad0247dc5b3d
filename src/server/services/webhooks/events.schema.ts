import { z } from "zod";
import { WEBHOOK_EVENTS, type WebhookEventName, type WebhookPayloads } from "../../../lib/webhook-events";

const did = z.string().describe("A DID (did:web:…)");
const lifecycle = z.enum(["provisional", "bound", "unlocked", "suspended"]);
const suspensionReason = z
  .enum(["sanctions_flag", "key_changed"])
  .describe("sanctions_flag: the person carries a sanctions flag; key_changed: the account's keys no longer hold the signing key");
const severity = z.enum(["low", "medium", "high", "critical"]);

/** The payload of each event as a schema: the catalog's JSON Schemas are generated from these. */
export const EVENT_PAYLOADS = {
  "account.created": z.object({ accountDid: did, lifecycle }),
  "kyc.approved": z.object({ personDid: did, level: z.string().describe("The KYC level the person passed") }),
  "identity.bound": z.object({
    accountDid: did,
    personDid: did,
    bindingVcHash: z.string().describe("Hex SHA-256 of the AccountBinding credential issued"),
  }),
  "identity.unbound": z.object({
    accountDid: did,
    personDid: did,
    bindingVcHash: z.string().describe("Hex SHA-256 of the AccountBinding credential revoked"),
    reason: z.string().describe("Why the binding ended, as the revoker wrote it"),
  }),
  "identity.binding_suspended": z.object({
    accountDid: did,
    personDid: did,
    bindingVcHash: z.string().describe("Hex SHA-256 of the AccountBinding credential suspended"),
    reason: suspensionReason,
  }),
  "identity.binding_reinstated": z.object({
    accountDid: did,
    personDid: did,
    bindingVcHash: z.string().describe("Hex SHA-256 of the AccountBinding credential active again"),
    reason: suspensionReason.describe("The suspension reason that was lifted"),
  }),
  "account.unlocked": z.object({ accountDid: did }),
  "aml.sanctions_hit": z.object({ personDid: did, severity }),
  "kyc.duplicate_person": z.object({
    personDid: did,
    match: z
      .enum(["document", "name_birth"])
      .describe("document: the same identity document; name_birth: the same name, birth date and nationality only"),
    otherPersonDids: z.array(did).describe("The organization's other people with it"),
    createRefused: z.boolean().describe("The organization's policy refuses this person a create token"),
  }),
  "person.erased": z.object({ personDid: did, erasedAt: z.iso.datetime().describe("When the person's data was erased") }),
  "attestation.published": z.object({
    accountDid: z.string().describe("The account's DID (did:antelope:…)"),
    status: z
      .enum(["active", "suspended", "revoked", "removed"])
      .describe("The account's row on chain now: active, suspended or revoked, or removed (no row: erased, or publishing turned off)"),
    actions: z
      .array(z.string())
      .describe("The attestation contract's actions sent, in order (issue, suspend, reinstate, revoke, remove); empty when none had to be"),
    transactionId: z.string().nullable().describe("The id of the chain transaction that carried them; null when nothing had to be sent"),
  }),
} satisfies { [E in WebhookEventName]: z.ZodType<WebhookPayloads[E]> };

export const EventTypeView = z.object({
  name: z.string(),
  firesWhen: z.string(),
  /** JSON Schema (draft 2020-12) of the delivery's `payload`. */
  payloadSchema: z.record(z.string(), z.unknown()),
});
export const EventTypeList = z.object({ eventTypes: z.array(EventTypeView) }).meta({ id: "WebhookEventTypes" });

/** The event catalog: every event the service sends, when, and its payload's JSON Schema. */
export function eventTypes(): z.output<typeof EventTypeList> {
  return {
    eventTypes: WEBHOOK_EVENTS.map((e) => ({
      name: e.name,
      firesWhen: e.firesWhen,
      payloadSchema: z.toJSONSchema(EVENT_PAYLOADS[e.name]) as Record<string, unknown>,
    })),
  };
}
