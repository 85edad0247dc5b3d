import { z } from "zod";
import type { ServiceContext } from "../../context";
import { issuerDid } from "../../crypto/issuer-keys";
import { AppError, notFound, validationError } from "../../errors";
import { personIdOfRef } from "../../platform/account-ref";
import { getErasure, requestErasure } from "./erasure";
import { PersonRef } from "./people.schema";

/**
 * Erasure from the console's person page. The /v1 call (POST /v1/people/{personDid}/erase) is a
 * tenant's backend acting on a request it has checked; in the console a person clicks, so the
 * member types the first 8 characters of the person's id first, and the service checks them: a
 * page that skipped its own check, or a request replayed against another person, erases nothing.
 */

/** How many leading characters of the person's id the member types. */
export const CONFIRMATION_LENGTH = 8;

export const ConsoleEraseInput = PersonRef.extend({ confirmation: z.string().max(100) });

/**
 * What was typed, as compared: spaces around it, letter case and hyphens do not matter, so the
 * short label's form ("Person 7F3A-21C9" shows `7F3A-21C9`) is accepted as well as `7f3a21c9`.
 */
const typed = (s: string) => s.trim().toLowerCase().replace(/-/g, "");

/** The person's id (uuid) from an id or a person DID, for a person of the caller's organization. */
async function personId(ctx: ServiceContext, ref: string): Promise<string> {
  const id = personIdOfRef(issuerDid(), ref);
  const person = id ? await ctx.db.person.findFirst({ where: { id, orgId: ctx.org.id }, select: { id: true } }) : null;
  if (!person) throw notFound("Person");
  return person.id;
}

/**
 * Checks the typed confirmation against the person's id, then requests the erasure exactly as
 * /v1 does (the same answer, the same 409 `erasure_held` when it is held and scheduled).
 */
export async function eraseFromConsole(ctx: ServiceContext, input: z.output<typeof ConsoleEraseInput>) {
  const id = await personId(ctx, input.id);
  if (typed(input.confirmation) !== id.slice(0, CONFIRMATION_LENGTH)) {
    throw validationError([{ path: ["confirmation"], message: `must be the first ${CONFIRMATION_LENGTH} characters of the person's id` }]);
  }
  return requestErasure(ctx, id);
}

/** The person's erasure request as it stands, or null when none was ever made. */
export async function consoleErasure(ctx: ServiceContext, ref: string) {
  const id = await personId(ctx, ref);
  try {
    return await getErasure(ctx, id);
  } catch (err) {
    // The person exists (checked above), so a NOT_FOUND here means no request was made.
    if (err instanceof AppError && err.code === "NOT_FOUND") return null;
    throw err;
  }
}
