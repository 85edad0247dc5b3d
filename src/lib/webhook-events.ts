/**
 * The events the service sends to webhooks, in the order the API guide lists them. Browser and
 * server code both import this file (the console offers these names to pick from), so it imports
 * nothing. A subscription to "*" receives every event, including ones added here later.
 */
export const WEBHOOK_EVENTS = [
  { name: "account.created", firesWhen: "A chain account is provisioned" },
  { name: "kyc.approved", firesWhen: "A person passes verification" },
  { name: "identity.bound", firesWhen: "A person is bound to an account by a wallet signature" },
  { name: "identity.unbound", firesWhen: "A binding is revoked for good: its credential's revocation bit is set" },
  {
    name: "identity.binding_suspended",
    firesWhen: "A binding is suspended (a sanctions flag, or the account's keys no longer hold the key that signed it)",
  },
  { name: "identity.binding_reinstated", firesWhen: "A suspended binding is active again (a clear, or a new wallet signature)" },
  { name: "account.unlocked", firesWhen: "An account becomes fully its user's after unlock" },
  { name: "aml.sanctions_hit", firesWhen: "Screening flags a person against a sanctions or PEP list" },
  {
    name: "kyc.duplicate_person",
    firesWhen:
      "A newly approved person has the same identity document as another person of the organization (or, weaker, the same name, birth date and nationality)",
  },
  { name: "person.erased", firesWhen: "A person's personal data is erased: their bindings are revoked and nothing about them is kept" },
  {
    name: "attestation.published",
    firesWhen: "The service published a change of an account's binding into the on-chain attestation contract",
  },
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number]["name"];

export const WEBHOOK_EVENT_NAMES: readonly WebhookEventName[] = WEBHOOK_EVENTS.map((e) => e.name);

/** The `payload` of each event, as the service writes it (checked where events are emitted). */
export type WebhookPayloads = {
  "account.created": { accountDid: string; lifecycle: "provisional" | "bound" | "unlocked" | "suspended" };
  "kyc.approved": { personDid: string; level: string };
  "identity.bound": { accountDid: string; personDid: string; bindingVcHash: string };
  "identity.unbound": { accountDid: string; personDid: string; bindingVcHash: string; reason: string };
  "identity.binding_suspended": { accountDid: string; personDid: string; bindingVcHash: string; reason: "sanctions_flag" | "key_changed" };
  "identity.binding_reinstated": { accountDid: string; personDid: string; bindingVcHash: string; reason: "sanctions_flag" | "key_changed" };
  "account.unlocked": { accountDid: string };
  "aml.sanctions_hit": { personDid: string; severity: "low" | "medium" | "high" | "critical" };
  "person.erased": { personDid: string; erasedAt: string };
  "kyc.duplicate_person": { personDid: string; match: "document" | "name_birth"; otherPersonDids: string[]; createRefused: boolean };
  "attestation.published": {
    accountDid: string;
    status: "active" | "suspended" | "revoked" | "removed";
    actions: string[];
    transactionId: string | null;
  };
};
