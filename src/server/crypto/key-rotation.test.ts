import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { applicantIdHash } from "../services/kyc/review";
import { deriveKey, open, resetSecretBoxKeys, seal } from "./secret-box";

const saved = { enc: process.env.BI_ENCRYPTION_KEY, hash: process.env.BI_HASH_KEY };
const key = () => randomBytes(32).toString("base64");

function configure(enc: string, hash = process.env.BI_HASH_KEY) {
  process.env.BI_ENCRYPTION_KEY = enc;
  if (hash === undefined) delete process.env.BI_HASH_KEY;
  else process.env.BI_HASH_KEY = hash;
  resetEnvCache();
  resetSecretBoxKeys();
}

afterEach(() => configure(saved.enc ?? "", saved.hash));

describe("rotating BI_ENCRYPTION_KEY", () => {
  it("keeps derived identifiers (applicant id hashes, so denylist entries keep matching) and old secrets readable", () => {
    const [k1, k2] = [key(), key()];
    configure(`one:${k1}`, key());
    const identity = { fullName: "Ada Lovelace", birthDate: "1815-12-10", country: "GB" };
    const before = applicantIdHash(identity);
    const otpKey = deriveKey("otp-code");
    const sealed = seal("whsec_old-secret");

    configure(`two:${k2},one:${k1}`);
    expect(applicantIdHash(identity)).toBe(before);
    expect(deriveKey("otp-code").equals(otpKey)).toBe(true);
    expect(open(sealed)).toBe("whsec_old-secret");
    expect(seal("new").split(".")[1]).toBe("two");
  });

  it("a different BI_HASH_KEY gives different identifiers", () => {
    configure(`one:${key()}`, key());
    const a = applicantIdHash({ fullName: "Ada Lovelace" });
    configure(`one:${key()}`, key());
    expect(applicantIdHash({ fullName: "Ada Lovelace" })).not.toBe(a);
  });
});
