import type { Logger } from "pino";
import type { Organization } from "@/generated/prisma/client.ts";
import type { Db } from "./db/client";

/**
 * Who is calling. An API key counts as one identity (for four-eyes checks); a console member is
 * their email address, which stays the actor in the audit log after the membership is revoked.
 */
export type Actor =
  | { type: "api_key"; id: string; label: string }
  | { type: "member"; email: string; role: string }
  | { type: "system"; label: string };

/** The string recorded in audit entries and compared by four-eyes checks. */
export function actorId(actor: Actor): string {
  switch (actor.type) {
    case "api_key":
      return `api_key:${actor.id}`;
    case "member":
      return `member:${actor.email}`;
    case "system":
      return `system:${actor.label}`;
  }
}

/** Everything a service function needs; built by the /v1 pipeline or the console's tRPC context. */
export type ServiceContext = {
  db: Db;
  org: Organization;
  actor: Actor;
  correlationId: string;
  clientIp: string;
  log: Logger;
  now: () => Date;
  /** The request's claimed Idempotency-Key record, when it sent one (recovery of an interrupted create completes it). */
  idempotencyClaimId?: string;
};
