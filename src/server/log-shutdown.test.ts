import { describe, expect, it } from "vitest";
import { createTestOrg } from "./testing/harness";
import { startInstance, stopInstance } from "./testing/instance";

/**
 * The access log is written asynchronously; a normal stop (SIGTERM) must still write
 * every line. The server runs in its own process with stdout piped, as under a supervisor.
 */
describe("asynchronous access log", () => {
  it("writes one access-log line per answered request, none lost on SIGTERM", async () => {
    const inst = await startInstance({ LOG_LEVEL: "info" });
    const org = await createTestOrg({ plan: "institutional" });
    const N = 400;
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < N) {
          const i = next++;
          const res = await fetch(`${inst.base}${i % 2 ? "/v1/whoami" : "/v1/tenant"}`, {
            headers: { authorization: `Bearer ${org.apiKey}` },
          });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(N);
    const code = await stopInstance(inst, "SIGTERM");
    expect(code).toBe(0);
    const lines = inst.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; route?: string; status?: number; apiKey?: unknown });
    // (start-up polled /v1/health; those lines are not this test's)
    const access = lines.filter((l) => l.msg === "request" && l.route !== "/v1/health");
    expect(access).toHaveLength(N);
    expect(access.filter((l) => l.route === "/v1/whoami" && l.status === 200)).toHaveLength(N / 2);
    expect(access.filter((l) => l.route === "/v1/tenant" && l.status === 200)).toHaveLength(N / 2);
    expect(inst.stdout).not.toContain(org.apiKey);
  }, 120_000);
});
