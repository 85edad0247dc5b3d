import { describe, expect, it } from "vitest";
import { dateIssue, describeError, describeIssues, textIssue } from "./error-text";

/** A failed console call as the tRPC client raises it: the answer's data, or none when no answer came. */
function clientError(message: string, data?: Record<string, unknown>) {
  return Object.assign(new Error(message), { name: "TRPCClientError", data });
}

describe("console errors in words", () => {
  it("words the server's zod issues per field, with the form's names and the value sent", () => {
    const err = clientError("email: Too big: expected string to have <=254 characters", {
      code: "BAD_REQUEST",
      issues: [{ path: ["email"], code: "too_big", origin: "string", maximum: 254, message: "Too big" }],
    });
    expect(describeError(err, { fields: { email: { label: "email" } } })).toEqual({
      message: "The email can be at most 254 characters.",
      fields: { email: "The email can be at most 254 characters." },
    });
    const cidr = clientError("cidrs.0: …", {
      code: "BAD_REQUEST",
      issues: [{ path: ["cidrs", "1"], code: "custom", message: "cidrs[1] is not a valid CIDR" }],
    });
    const words = (v: unknown) => `Enter a CIDR such as 203.0.113.0/24 or a single address; ${String(v)} is not one.`;
    expect(
      describeError(cidr, { fields: { cidrs: { label: "range", words } }, input: { cidrs: ["10.0.0.0/8", "999.1.1.1/99"] } }).fields,
    ).toEqual({
      cidrs: "Enter a CIDR such as 203.0.113.0/24 or a single address; 999.1.1.1/99 is not one.",
    });
  });

  it("words the forms' own checks the same way", () => {
    expect(describeIssues([dateIssue(["from"], "")!], { fields: { from: { label: "start" } } }).message).toBe(
      "Pick a start date and time.",
    );
    expect(describeIssues([dateIssue(["to"], "")!], { fields: { to: { label: "end" } } }).message).toBe("Pick an end date and time.");
    expect(dateIssue(["from"], "2024-01-01T00:00:00Z")).toBeNull();
    expect(textIssue(["name"], " x ", 2, 64)).toMatchObject({ code: "too_small", minimum: 2 });
    expect(textIssue(["name"], "n".repeat(65), 2, 64)).toMatchObject({ code: "too_big", maximum: 64 });
    expect(describeIssues([textIssue(["name"], "x", 2, 64)!], { fields: { name: { label: "key name" } } }).message).toBe(
      "The key name needs at least 2 characters.",
    );
    // A field the form did not name is worded from its path.
    expect(describeIssues([{ path: ["body", "reason"], code: "too_small", origin: "string", minimum: 1 }]).message).toBe(
      "Enter the reason.",
    );
  });

  it("passes the service's own sentences through, says when to retry a 429, and names a lost connection", () => {
    expect(describeError(clientError("Only an owner can mint an admin key.", { code: "FORBIDDEN", appCode: "FORBIDDEN" })).message).toBe(
      "Only an owner can mint an admin key.",
    );
    const limited = clientError("Too many requests; retry later.", { code: "TOO_MANY_REQUESTS", details: { retryAfterSec: 42 } });
    expect(describeError(limited).message).toBe("Too many requests; retry later. Try again in 42 seconds.");
    expect(describeError(clientError("Failed to fetch")).message).toMatch(/^The service could not be reached/);
    expect(describeError("nope").message).toBe("Something went wrong. Try again.");
  });
});
