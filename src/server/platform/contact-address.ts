import { parsePhoneNumberFromString } from "libphonenumber-js";
import { hmacSha256Hex } from "../crypto/hash";
import { deriveKey } from "../crypto/secret-box";
import { AppError } from "../errors";

/** Local numbers without a country code are read as Ghanaian (the spec's "local Ghana number"). */
export const DEFAULT_PHONE_REGION = "GH";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** E.164, or a 400 naming the field (never echoing the number). */
export function normalizePhone(raw: string, field = "phone"): string {
  const parsed = parsePhoneNumberFromString(raw.trim(), DEFAULT_PHONE_REGION);
  if (!parsed?.isValid()) {
    throw new AppError("VALIDATION_ERROR", "The phone number is not valid: use E.164 (+233…) or a local Ghana number.", {
      issues: [{ path: `body.${field}`, message: "not a valid phone number" }],
    });
  }
  return parsed.number;
}

/**
 * How a person's verified phone is looked up and kept unique in an organization while the number
 * itself is sealed under the person's data key (`people.verifiedPhoneHash`): a keyed hash of the
 * organization and the E.164 number, so a database dump alone cannot test numbers against it.
 */
export const verifiedPhoneHash = (orgId: string, e164: string) => hmacSha256Hex(deriveKey("verified-phone"), `${orgId}\n${e164}`);

/**
 * How an account's contact is looked up and kept unique in an organization while the address
 * itself is sealed under the account's data key (`accounts.emailHash`, `phoneHash`): a keyed hash
 * of the organization and the normalised address (lower-cased email, E.164 number), one HKDF label
 * per channel. One-time codes and proof tokens carry the same hash (`addressHash`), so the codes of
 * an account's address are found from the account's hash; a public signup's (no organization)
 * hashes under "public".
 */
export const contactHash = (orgId: string | null, channel: "email" | "phone", address: string) =>
  hmacSha256Hex(deriveKey(channel === "email" ? "account-email" : "account-phone"), `${orgId ?? "public"}\n${address}`);

/**
 * The accounts of an organization whose `channel` contact is `address`: by its keyed hash, or by
 * value for a contact written in clear before contacts were sealed (until the person data
 * migration reaches it).
 */
export function accountsWithContact(orgId: string, channel: "email" | "phone", address: string) {
  const hash = contactHash(orgId, channel, address);
  return { orgId, OR: channel === "email" ? [{ emailHash: hash }, { email: address }] : [{ phoneHash: hash }, { phone: address }] };
}

/** "j***@example.com": the first character and the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  return `${email[0]}***${email.slice(at)}`;
}

/** "+233*****4567": the country code and the last four digits. */
export function maskPhone(e164: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  const cc = parsed ? `+${parsed.countryCallingCode}` : e164.slice(0, 4);
  return `${cc}${"*".repeat(Math.max(3, e164.length - cc.length - 4))}${e164.slice(-4)}`;
}
