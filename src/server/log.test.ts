import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./log";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { log: createLogger("info", stream), lines };
}

describe("structured logs", () => {
  it("redacts secrets and personal data wherever they sit in the logged object", () => {
    const { log, lines } = capture();
    log.child({ correlationId: "c-1" }).info(
      {
        authorization: "Bearer bi_test_secret",
        req: { headers: { authorization: "Bearer bi_test_secret2" }, body: { email: "a@b.test", code: "123456" } },
        apiKey: "bi_test_raw",
        nested: { deeper: { phone: "+233241234567", signingSecret: "bisig_x" } },
        route: "/v1/tenant",
      },
      "handled",
    );
    const text = lines.join("");
    for (const secret of ["bi_test_secret", "bi_test_secret2", "a@b.test", "123456", "bi_test_raw", "+233241234567", "bisig_x"]) {
      expect(text).not.toContain(secret);
    }
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ correlationId: "c-1", route: "/v1/tenant", msg: "handled", service: "bind-identity" });
    expect(entry.apiKey).toBe("[redacted]");
  });
});
