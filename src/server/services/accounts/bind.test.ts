import { describe, expect, it } from "vitest";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { nextKycStatus } from "../kyc/review";
import { countryDecision } from "./bind";

const policy = (allowedCountries: string[], blockedCountries: string[]) => ({ allowedCountries, blockedCountries });

describe("country policy at bind (the contract's five rules)", () => {
  it("rule 1: a blocked country is refused, and the blocklist wins over the allow list", () => {
    expect(countryDecision(policy([], ["IR"]), "IR")).toMatchObject({ allowed: false, rule: 1 });
    expect(countryDecision(policy(["IR", "GH"], ["IR"]), "IR")).toMatchObject({ allowed: false, rule: 1 });
    expect(countryDecision(policy([], ["IR"]), "ir")).toMatchObject({ allowed: false, rule: 1 });
  });
  it("rule 2: a country absent from a non-empty allow list is refused", () => {
    expect(countryDecision(policy(["GH", "NG"], []), "KE")).toMatchObject({ allowed: false, rule: 2 });
    expect(countryDecision(policy(["GH", "NG"], []), "NG")).toEqual({ allowed: true });
  });
  it("rule 3: with either list set, an unknown country is refused", () => {
    expect(countryDecision(policy(["GH"], []), null)).toMatchObject({ allowed: false, rule: 3 });
    expect(countryDecision(policy([], ["IR"]), null)).toMatchObject({ allowed: false, rule: 3 });
  });
  it("rule 4: empty lists restrict nothing, unknown country included", () => {
    expect(countryDecision(policy([], []), "KP")).toEqual({ allowed: true });
    expect(countryDecision(policy([], []), null)).toEqual({ allowed: true });
    expect(countryDecision(policy([], ["IR"]), "GH")).toEqual({ allowed: true });
  });
  it("rule 5: an omitted field of the policy update is left unchanged", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const api = client(url, org.apiKey);
    await api.put("/v1/admin/country-policy", { allowedCountries: ["GH"], blockedCountries: ["IR"] });
    const res = await api.put("/v1/admin/country-policy", { blockedCountries: ["KP"] });
    expect(res.body).toEqual({ allowedCountries: ["GH"], blockedCountries: ["KP"] });
  });
});

describe("KYC status transitions from provider reviews", () => {
  it("keeps approved and rejected final", () => {
    for (const next of ["approved", "rejected", "retry", "in_review", "pending"] as const) {
      expect(nextKycStatus("approved", next)).toBeNull();
      expect(nextKycStatus("rejected", next)).toBeNull();
    }
  });
  it("lets a resubmission after retry go to review, but a pending review carries no news", () => {
    expect(nextKycStatus("retry", "in_review")).toBe("in_review");
    expect(nextKycStatus("retry", "pending")).toBeNull();
    expect(nextKycStatus("in_review", "pending")).toBeNull();
    expect(nextKycStatus("pending", "in_review")).toBe("in_review");
    expect(nextKycStatus("in_review", "approved")).toBe("approved");
    expect(nextKycStatus("not_started", "pending")).toBe("pending");
  });
});
