import http from "node:http";
import { createTRPCClient, TRPCClientError } from "@trpc/client";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "@/lib/roles";
import { consoleLinks } from "@/trpc/links";
import { getDb } from "../db/client";
import { serviceCtx } from "../testing/aml";
import { listenOnLoopback } from "../testing/fake-http";
import { createTestOrg } from "../testing/harness";
import { refuseNonJsonPost } from "./json-only";
import { type AppRouter, appRouter } from "./root";
import { IDEMPOTENCY_HEADER } from "./trpc";

// The console's door over real HTTP, as src/app/api/trpc/[trpc]/route.ts serves it, with the
// signed-in member given by a test header instead of a session cookie.

let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  const node = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    const who = JSON.parse(request.headers.get("x-test-member") ?? "null") as { orgId: string; email: string; role: Role } | null;
    const answer =
      refuseNonJsonPost(request) ??
      (await fetchRequestHandler({
        endpoint: "/api/trpc",
        req: request,
        router: appRouter,
        createContext: async () => ({
          svc: who ? await serviceCtx(await getDb(), who.orgId, { type: "member", email: who.email, role: who.role }) : null,
          idempotencyKey: request.headers.get(IDEMPOTENCY_HEADER),
        }),
      }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  server = await listenOnLoopback(node);
});

afterAll(async () => {
  await server.close();
});

/** The console's own tRPC client (its links), signed in as `email` of `orgId`. */
function as(orgId: string, email = "owner@acme.test", role: Role = "owner") {
  const member = JSON.stringify({ orgId, email, role });
  const signedIn: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("x-test-member", member);
    return fetch(input, { ...init, headers });
  };
  return createTRPCClient<AppRouter>({ links: consoleLinks(`${server.url}/api/trpc`, signedIn) });
}

const withKey = (idempotencyKey: string) => ({ context: { idempotencyKey } });

async function keysNamed(orgId: string, name: string) {
  return (await getDb()).apiKey.count({ where: { orgId, name } });
}

describe("console mutations with an idempotency key", () => {
  it("runs a mint once for two submissions with one key and answers both with the same secret", async () => {
    const { orgId } = await createTestOrg();
    const api = as(orgId);
    const input = { name: "Wallet backend", scopes: ["read" as const] };
    const first = await api.apiKeys.mint.mutate(input, withKey("submit-1"));
    const second = await api.apiKeys.mint.mutate(input, withKey("submit-1"));
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.id).toBe(first.id);
    expect(await keysNamed(orgId, "Wallet backend")).toBe(1);
    // A new submission (a new key) is a new key.
    const third = await api.apiKeys.mint.mutate(input, withKey("submit-2"));
    expect(third.apiKey).not.toBe(first.apiKey);
    expect(await keysNamed(orgId, "Wallet backend")).toBe(2);
  });

  it("refuses the same key with another input or another procedure, changing nothing", async () => {
    const { orgId } = await createTestOrg();
    const api = as(orgId);
    await api.apiKeys.mint.mutate({ name: "First", scopes: ["read"] }, withKey("k"));
    const other = await api.apiKeys.mint.mutate({ name: "Second", scopes: ["read"] }, withKey("k")).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(TRPCClientError);
    expect((other as TRPCClientError<AppRouter>).data).toMatchObject({ code: "UNPROCESSABLE_CONTENT", appCode: "IDEMPOTENCY_KEY_REUSED" });
    expect((other as Error).message).toMatch(/already sent with other values/);
    const policy = await api.tenant.updatePolicy.mutate({ requireKycBeforeFreeCreate: true }, withKey("k")).catch((e: unknown) => e);
    expect((policy as TRPCClientError<AppRouter>).data?.code).toBe("UNPROCESSABLE_CONTENT");
    expect(await keysNamed(orgId, "Second")).toBe(0);
    expect((await (await getDb()).organization.findUniqueOrThrow({ where: { id: orgId } })).requireKycBeforeFreeCreate).toBe(false);
  });

  it("runs once when the repeat arrives while the first is still in flight", async () => {
    const { orgId } = await createTestOrg();
    const api = as(orgId);
    const input = { name: "Racing", scopes: ["read" as const] };
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => api.apiKeys.mint.mutate(input, withKey("race"))));
    expect(await keysNamed(orgId, "Racing")).toBe(1);
    const secrets = new Set(results.flatMap((r) => (r.status === "fulfilled" ? [r.value.apiKey] : [])));
    expect(secrets.size).toBe(1);
    for (const r of results) {
      if (r.status === "rejected") {
        expect((r.reason as TRPCClientError<AppRouter>).data).toMatchObject({
          code: "CONFLICT",
          details: { reason: "idempotency_in_progress" },
        });
      }
    }
    // Once the first has answered, the same key replays it.
    const after = await api.apiKeys.mint.mutate(input, withKey("race"));
    expect(secrets.has(after.apiKey)).toBe(true);
  });

  it("keeps keys apart per member and per organization", async () => {
    const { orgId } = await createTestOrg();
    const input = { name: "Shared key name", scopes: ["read" as const] };
    const a = await as(orgId, "a@acme.test").apiKeys.mint.mutate(input, withKey("same"));
    const b = await as(orgId, "b@acme.test").apiKeys.mint.mutate(input, withKey("same"));
    expect(b.apiKey).not.toBe(a.apiKey);
    expect(await keysNamed(orgId, "Shared key name")).toBe(2);
  });

  it("releases the key of a refused call, so a corrected submission may reuse it", async () => {
    const { orgId } = await createTestOrg();
    const api = as(orgId);
    const bad = await api.apiKeys.mint.mutate({ name: "x".repeat(65), scopes: ["read"] }, withKey("fix-me")).catch((e: unknown) => e);
    expect((bad as TRPCClientError<AppRouter>).data).toMatchObject({
      code: "BAD_REQUEST",
      issues: [{ path: ["name"], code: "too_big", origin: "string", maximum: 64 }],
    });
    const good = await api.apiKeys.mint.mutate({ name: "Fixed", scopes: ["read"] }, withKey("fix-me"));
    expect(good.name).toBe("Fixed");
    expect(await keysNamed(orgId, "Fixed")).toBe(1);
  });

  it("without a key behaves as before: each call acts", async () => {
    const { orgId } = await createTestOrg();
    const api = as(orgId);
    const input = { name: "No key", scopes: ["read" as const] };
    const [x, y] = [await api.apiKeys.mint.mutate(input), await api.apiKeys.mint.mutate(input)];
    expect(x.apiKey).not.toBe(y.apiKey);
    expect(await keysNamed(orgId, "No key")).toBe(2);
  });

  it("refuses a key longer than 255 characters", async () => {
    const { orgId } = await createTestOrg();
    const err = await as(orgId)
      .apiKeys.mint.mutate({ name: "Long key", scopes: ["read"] }, withKey("k".repeat(256)))
      .catch((e: unknown) => e);
    expect((err as TRPCClientError<AppRouter>).data?.code).toBe("BAD_REQUEST");
    expect(await keysNamed(orgId, "Long key")).toBe(0);
  });
});
