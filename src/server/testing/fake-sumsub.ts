import crypto from "node:crypto";
import { payloadDigest } from "../providers/kyc/sumsub-review";
import { bodyOf, type FakeAnswer, type FakeFailureMode, type FakeRequest, failureSwitch, fakeControls, startFakeServer } from "./fake-http";

/** One applicant as the fake keeps it, in Sumsub's own shape. */
export type FakeSumsubApplicant = {
  id: string;
  externalUserId: string;
  levelName: string;
  type: "individual" | "company";
  createdAt: string;
  info?: Record<string, string>;
  fixedInfo?: Record<string, unknown>;
  review: {
    reviewStatus: string;
    reviewDate?: string;
    reviewResult?: { reviewAnswer: "GREEN" | "RED"; reviewRejectType?: "FINAL" | "RETRY"; rejectLabels?: string[] };
  };
};

/** Every request, accepted or not, with the body as sent. */
export type FakeSumsubRequest = { method: string; path: string; body: unknown; status: number; appToken?: string };

export type FakeSumsubReview = {
  answer: "GREEN" | "RED";
  rejectType?: "FINAL" | "RETRY";
  labels?: string[];
  info?: Record<string, string>;
};

export type FakeCallback = { rawBody: Buffer; headers: Headers };

export type FakeSumsub = {
  url: string;
  appToken: string;
  secretKey: string;
  webhookSecret: string;
  levels: Set<string>;
  applicants: Map<string, FakeSumsubApplicant>;
  requests: FakeSumsubRequest[];
  /** Every following request fails this way ("ok" restores). */
  setMode(mode: FakeFailureMode): void;
  /** Only the next n requests fail this way. */
  failNext(mode: FakeFailureMode, n: number): void;
  /** Completes (or sets to pending) an applicant's review, as Sumsub's reviewers would. */
  review(applicantId: string, r: FakeSumsubReview | { pending: string }): void;
  /** An applicantReviewed webhook for the applicant's current review, signed with the webhook secret. */
  reviewedCallback(applicantId: string, alg?: "HMAC_SHA1_HEX" | "HMAC_SHA256_HEX" | "HMAC_SHA512_HEX"): FakeCallback;
  /** Any webhook body, signed correctly. */
  signedCallback(body: unknown, alg?: string): FakeCallback;
  /** The same body signed with a secret that is not ours. */
  forgedCallback(applicantId: string): FakeCallback;
  send(url: string, cb: FakeCallback): Promise<number>;
  close(): Promise<void>;
};

const hex = (n: number) => crypto.randomBytes(n).toString("hex");
const sumsubError = (status: number, description: string, extra: Record<string, unknown> = {}): FakeAnswer => ({
  status,
  json: { description, code: status, correlationId: `req-${crypto.randomUUID()}`, ...extra },
});
const CLOCK_SKEW_SEC = 300;

/**
 * A local stand-in for Sumsub's API: checks X-App-Token, the timestamp and X-App-Access-Sig
 * (HMAC-SHA256 of ts + METHOD + path?query + body) on every request, answers in Sumsub's shapes
 * and error envelope, keeps applicants and reviews, and builds signed webhooks.
 */
export async function startFakeSumsub(opts: { levels?: string[] } = {}): Promise<FakeSumsub> {
  const appToken = `sbx:${hex(16)}`;
  const secretKey = hex(16);
  const webhookSecret = hex(16);
  const levels = new Set(opts.levels ?? ["basic-kyc", "basic-kyb"]);
  const applicants = new Map<string, FakeSumsubApplicant>();
  const requests: FakeSumsubRequest[] = [];
  const failures = failureSwitch();

  function authenticate(r: FakeRequest): FakeAnswer | null {
    if (r.headers["x-app-token"] !== appToken)
      return sumsubError(401, "App token not found", { errorCode: 4000, errorName: "app-token-not-found" });
    const ts = String(r.headers["x-app-access-ts"] ?? "");
    if (!/^\d+$/.test(ts) || Math.abs(Number(ts) - Date.now() / 1000) > CLOCK_SKEW_SEC)
      return sumsubError(401, "Request timestamp is out of range", { errorCode: 4001, errorName: "invalid-timestamp" });
    const expected = crypto
      .createHmac("sha256", secretKey)
      .update(ts + r.method + r.path + r.raw)
      .digest("hex");
    if (r.headers["x-app-access-sig"] !== expected)
      return sumsubError(401, "Request signature mismatch", { errorCode: 4002, errorName: "invalid-signature" });
    return null;
  }

  function route(r: FakeRequest, body: any): FakeAnswer {
    const url = new URL(r.path, "http://fake");
    const p = url.pathname;
    if (r.method === "POST" && p === "/resources/applicants") {
      const levelName = url.searchParams.get("levelName") ?? "";
      if (!levels.has(levelName))
        return sumsubError(400, `Level '${levelName}' not found`, { errorCode: 1001, errorName: "level-not-found" });
      if (typeof body?.externalUserId !== "string" || !body.externalUserId) return sumsubError(400, "externalUserId is required");
      const dup = [...applicants.values()].find((a) => a.externalUserId === body.externalUserId);
      if (dup) return sumsubError(409, `Applicant with external user id '${body.externalUserId}' already exists: ${dup.id}`);
      const a: FakeSumsubApplicant = {
        id: hex(12),
        externalUserId: body.externalUserId,
        levelName,
        type: body.type === "company" ? "company" : "individual",
        createdAt: new Date().toISOString().replace("T", " ").slice(0, 19),
        fixedInfo: body.fixedInfo,
        review: { reviewStatus: "init" },
      };
      applicants.set(a.id, a);
      return { status: 201, json: a };
    }
    const one = p.match(/^\/resources\/applicants\/([^/]+)\/one$/);
    if (r.method === "GET" && one) {
      const key = decodeURIComponent(one[1]!);
      const byExt = key.match(/^-;externalUserId=(.+)$/);
      const a = byExt ? [...applicants.values()].find((x) => x.externalUserId === byExt[1]) : applicants.get(key);
      return a ? { status: 200, json: a } : sumsubError(404, "Applicant not found");
    }
    if (r.method === "POST" && p === "/resources/sdkIntegrations/levels/-/websdkLink") {
      if (!levels.has(body?.levelName))
        return sumsubError(400, `Level '${String(body?.levelName)}' not found`, { errorCode: 1001, errorName: "level-not-found" });
      if (typeof body?.userId !== "string") return sumsubError(400, "userId is required");
      return { status: 200, json: { url: `https://in.sumsub.com/websdk/p/sbx_${hex(8)}` } };
    }
    if (r.method === "POST" && p === "/resources/accessTokens/sdk") {
      if (!levels.has(body?.levelName))
        return sumsubError(400, `Level '${String(body?.levelName)}' not found`, { errorCode: 1001, errorName: "level-not-found" });
      return { status: 200, json: { token: `_act-sbx-${crypto.randomUUID()}`, userId: body.userId } };
    }
    return sumsubError(404, "Not found");
  }

  function failure(mode: FakeFailureMode): FakeAnswer | null | undefined {
    if (mode === "hang") return null;
    if (mode === "unavailable")
      return { ...sumsubError(503, "Service unavailable"), headers: { "retry-after": new Date(Date.now() + 30_000).toUTCString() } };
    if (mode === "server_error") return sumsubError(500, "Internal error");
    if (mode === "rate_limited") return { ...sumsubError(429, "Too many requests"), headers: { "retry-after": "7" } };
    return undefined;
  }

  const server = await startFakeServer((r) => {
    const body = bodyOf(r);
    const refused = authenticate(r);
    const answer = refused ?? failure(failures.current());
    const out = answer === undefined ? route(r, body) : answer;
    requests.push({
      method: r.method,
      path: r.path,
      body,
      status: out?.status ?? 0,
      appToken: r.headers["x-app-token"] as string | undefined,
    });
    return out;
  });

  function sign(body: unknown, secret: string, alg = "HMAC_SHA256_HEX"): FakeCallback {
    const rawBody = Buffer.from(JSON.stringify(body), "utf8");
    const digest = payloadDigest(rawBody, secret, alg) ?? "";
    return {
      rawBody,
      headers: new Headers({ "content-type": "application/json", "x-payload-digest": digest, "x-payload-digest-alg": alg }),
    };
  }

  function reviewedBody(applicantId: string) {
    const a = applicants.get(applicantId);
    if (!a) throw new Error(`fake sumsub: no applicant ${applicantId}`);
    return {
      applicantId: a.id,
      inspectionId: hex(12),
      applicantType: a.type,
      correlationId: `req-${crypto.randomUUID()}`,
      levelName: a.levelName,
      sandboxMode: true,
      externalUserId: a.externalUserId,
      type: "applicantReviewed",
      reviewResult: a.review.reviewResult,
      reviewStatus: a.review.reviewStatus,
      createdAtMs: new Date().toISOString().replace("T", " ").replace("Z", ""),
    };
  }

  return {
    ...fakeControls(server, failures),
    appToken,
    secretKey,
    webhookSecret,
    levels,
    applicants,
    requests,
    review(applicantId, r) {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`fake sumsub: no applicant ${applicantId}`);
      if ("pending" in r) a.review = { reviewStatus: r.pending };
      else {
        a.info = r.info ?? a.info;
        a.review = {
          reviewStatus: "completed",
          reviewDate: new Date().toISOString().replace("T", " ").slice(0, 19),
          reviewResult: {
            reviewAnswer: r.answer,
            ...(r.answer === "RED" ? { reviewRejectType: r.rejectType ?? "FINAL" } : {}),
            rejectLabels: r.labels,
          },
        };
      }
    },
    reviewedCallback: (applicantId, alg) => sign(reviewedBody(applicantId), webhookSecret, alg),
    signedCallback: (body, alg) => sign(body, webhookSecret, alg),
    forgedCallback: (applicantId) => sign(reviewedBody(applicantId), hex(16)),
  };
}
