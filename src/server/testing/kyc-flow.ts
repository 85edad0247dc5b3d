import { expect } from "vitest";
import { call, type client } from "./harness";

type Api = ReturnType<typeof client>;

/** The sandbox applicant id at the end of a hosted verification URL. */
export const applicantOf = (verificationUrl: string) => new URL(verificationUrl).pathname.split("/").pop()!;

/** Person-first KYC completed on the sandbox's hosted route, then the status with its create token. */
export async function approvedPerson(url: string, api: Api, outcome: "approved" | "pep" = "approved") {
  const started = await api.post("/v1/kyc/start", {});
  expect(started.status, started.text).toBe(200);
  const hosted = await call(url, "POST", `/v1/sandbox/kyc/hosted/${applicantOf(started.body.verificationUrl)}`, { body: { outcome } });
  expect(hosted.status, hosted.text).toBe(200);
  const status = await api.get(`/v1/kyc/status?personDid=${encodeURIComponent(started.body.personDid)}`);
  expect(status.body.status).toBe("approved");
  return { personDid: started.body.personDid as string, createToken: status.body.createToken as string, started: started.body };
}
