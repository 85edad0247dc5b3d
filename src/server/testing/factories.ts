import { randomInt } from "node:crypto";
import { PrivateKey } from "@wharfkit/antelope";
import type { Prisma } from "@/generated/prisma/client.ts";
import { sealForPerson } from "../crypto/person-box";
import { type DbOrTx, getDb } from "../db/client";
import { verifiedPhoneHash } from "../platform/contact-address";
import { liveCreateToken } from "../services/kyc/create-tokens";

/** A wallet key pair as a user's wallet would hold it. */
export function walletKey(type: "K1" | "R1" = "K1") {
  const privateKey = PrivateKey.generate(type);
  const pub = privateKey.toPublic();
  return { privateKey, publicKey: pub.toString(), legacy: type === "K1" ? pub.toLegacyString() : pub.toString() };
}

/** Signs text the way a wallet signs a payloadToSign (SHA-256 of the UTF-8 bytes). */
export const walletSign = (privateKey: PrivateKey, text: string) => privateKey.signMessage(new TextEncoder().encode(text)).toString();

/** An approved person with a fresh KYC create token, without going through the KYC flow. */
export async function approvedPersonWithToken(orgId: string, opts: { verifiedPhone?: string } = {}) {
  const db = await getDb();
  return db.$transaction(async (tx) => {
    let person = await tx.person.create({ data: { orgId, kycStatus: "approved", kycProvider: "sandbox", country: "GH" } });
    if (opts.verifiedPhone) {
      // As a KYC review records it: sealed under the person's key, found by its keyed hash.
      person = await tx.person.update({
        where: { id: person.id },
        data: {
          verifiedPhone: await sealForPerson(tx, person, opts.verifiedPhone),
          verifiedPhoneHash: verifiedPhoneHash(orgId, opts.verifiedPhone),
        },
      });
    }
    const { token } = await liveCreateToken(tx, orgId, person.id);
    return { person, token };
  });
}

/** A valid account name that no other test will pick. */
export const uniqueName = () => `t${Array.from({ length: 11 }, () => "abcdefghijklmnopqrstuvwxyz12345"[randomInt(31)]).join("")}`;

/**
 * An account row of the organization on the simulated chain, written straight to the table (a
 * test's starting state, or a row as an older version wrote it); `data` sets any other column.
 */
export function accountRow(db: DbOrTx, orgId: string, data: Partial<Prisma.AccountUncheckedCreateInput> = {}) {
  const name = uniqueName();
  const key = walletKey().publicKey;
  return db.account.create({
    data: { orgId, chain: "sandbox", name, did: `did:antelope:sandbox:${name}`, ownerPublicKey: key, activePublicKey: key, ...data },
  });
}
