import crypto from "node:crypto";
import { bodyOf, type FakeAnswer, type FakeFailureMode, type FakeRequest, failureSwitch, fakeControls, startFakeServer } from "./fake-http";

/**
 * `info` as Sumsub's applicant data has it: what it extracted (names, `dob`, `country` and
 * `nationality` as alpha-3), and `idDocs`, one element per recognised document with its
 * `idDocType`, issuing `country` (alpha-3) and `number`.
 */
export type SumsubInfo = Record<string, string | SumsubIdDoc[] | undefined> & { idDocs?: SumsubIdDoc[] };
export type SumsubIdDoc = {
  idDocType: string;
  country: string;
  number?: string;
  firstName?: string;
  lastName?: string;
  dob?: string;
  validUntil?: string;
};

/** One applicant as the fake keeps it, in Sumsub's own shape. */
export type FakeSumsubApplicant = {
  id: string;
  externalUserId: string;
  levelName: string;
  type: "individual" | "company";
  createdAt: string;
  info?: SumsubInfo;
  fixedInfo?: Record<string, unknown>;
  /** The number the applicant confirmed in Sumsub's phone verification step. */
  phone?: string;
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
  info?: SumsubInfo;
  /** The applicant confirmed this number in the phone verification step. */
  phone?: string;
};

export type FakeCallback = { rawBody: Buffer; headers: Headers };

export type FakeDigestAlg = "HMAC_SHA1_HEX" | "HMAC_SHA256_HEX" | "HMAC_SHA512_HEX" | "legacy";

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
  /**
   * Sets Sumsub's clock this many seconds ahead of ours (negative: behind), so a test can show
   * where its timestamp window ends.
   */
  setClockOffset(seconds: number): void;
  /**
   * An applicantReviewed webhook for the applicant's current review, signed with the webhook
   * secret. `alg` names the digest in X-Payload-Digest-Alg (SHA-256 unless told); `"legacy"` signs
   * as webhooks made before the header existed do: HMAC-SHA1 and no X-Payload-Digest-Alg at all.
   */
  reviewedCallback(applicantId: string, alg?: FakeDigestAlg): FakeCallback;
  /** Any webhook body, signed correctly; `alg` as for reviewedCallback, or a name Sumsub does not have. */
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
// Sumsub refuses an X-App-Access-Ts more than about a minute away from its own clock.
const CLOCK_SKEW_SEC = 60;
// The fake's own table, kept apart from the adapter's so a wrong name there cannot agree with itself here.
const DIGESTS: Record<string, string> = { HMAC_SHA1_HEX: "sha1", HMAC_SHA256_HEX: "sha256", HMAC_SHA512_HEX: "sha512" };

/**
 * Sumsub's 401 answers with the codes of its error-code table (4001-4006). The names follow its
 * kebab-case; the signature refusal is spelled as its API sends it, space included.
 */
const authError = {
  missing: () =>
    sumsubError(401, "Not all required authorization headers were provided", {
      errorCode: 4006,
      errorName: "app-token-not-all-auth-params-provided",
    }),
  unknownToken: () => sumsubError(401, "App token not found", { errorCode: 4001, errorName: "app-token-not-found" }),
  badTimestamp: () => sumsubError(401, "Invalid authentication header values", { errorCode: 4005, errorName: "app-token-invalid-value" }),
  expired: () =>
    sumsubError(401, "Request timestamp is out of the allowed range", { errorCode: 4004, errorName: "app-token-request-expired" }),
  signature: () => sumsubError(401, "Request signature mismatch", { errorCode: 4003, errorName: "app-token-signature mismatch" }),
};

/** Sumsub's answer to a level name it does not have: a 400 with a description and no error code or name. */
const noSuchLevel = () => sumsubError(400, "Existing level should be specified");

/**
 * A local stand-in for Sumsub's API: checks X-App-Token, the timestamp (one minute either way)
 * and X-App-Access-Sig (HMAC-SHA256 of ts + METHOD + the request-target exactly as it arrived +
 * body) on every request, answers in Sumsub's shapes and error envelope, keeps applicants and
 * reviews, and builds signed webhooks.
 */
export async function startFakeSumsub(opts: { levels?: string[] } = {}): Promise<FakeSumsub> {
  const appToken = `sbx:${hex(16)}`;
  const secretKey = hex(16);
  const webhookSecret = hex(16);
  const levels = new Set(opts.levels ?? ["basic-kyc", "basic-kyb"]);
  const applicants = new Map<string, FakeSumsubApplicant>();
  const requests: FakeSumsubRequest[] = [];
  const failures = failureSwitch();
  let clockOffsetSec = 0;

  function authenticate(r: FakeRequest): FakeAnswer | null {
    const token = r.headers["x-app-token"];
    const ts = r.headers["x-app-access-ts"];
    const sig = r.headers["x-app-access-sig"];
    if (typeof token !== "string" || typeof ts !== "string" || typeof sig !== "string") return authError.missing();
    if (token !== appToken) return authError.unknownToken();
    if (!/^\d+$/.test(ts)) return authError.badTimestamp();
    if (Math.abs(Number(ts) - (Date.now() / 1000 + clockOffsetSec)) > CLOCK_SKEW_SEC) return authError.expired();
    // r.path is the request-target as it came off the wire, so a client that signs anything else is refused.
    const expected = crypto
      .createHmac("sha256", secretKey)
      .update(ts + r.method + r.path + r.raw)
      .digest("hex");
    if (sig !== expected) return authError.signature();
    return null;
  }

  function route(r: FakeRequest, body: any): FakeAnswer {
    const url = new URL(r.path, "http://fake");
    const p = url.pathname;
    if (r.method === "POST" && p === "/resources/applicants") {
      const levelName = url.searchParams.get("levelName") ?? "";
      if (!levels.has(levelName)) return noSuchLevel();
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
      if (!levels.has(body?.levelName)) return noSuchLevel();
      if (typeof body?.userId !== "string") return sumsubError(400, "userId is required");
      return { status: 200, json: { url: `https://in.sumsub.com/websdk/p/sbx_${hex(8)}` } };
    }
    if (r.method === "POST" && p === "/resources/accessTokens/sdk") {
      if (!levels.has(body?.levelName)) return noSuchLevel();
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

  function sign(body: unknown, secret: string, alg: string = "HMAC_SHA256_HEX"): FakeCallback {
    const rawBody = Buffer.from(JSON.stringify(body), "utf8");
    const hash = alg === "legacy" ? "sha1" : DIGESTS[alg];
    // An algorithm Sumsub does not have still gets a digest, so a test can show it is refused.
    const digest = crypto
      .createHmac(hash ?? "sha256", secret)
      .update(rawBody)
      .digest("hex");
    const headers = new Headers({ "content-type": "application/json", "x-payload-digest": digest });
    if (alg !== "legacy") headers.set("x-payload-digest-alg", alg);
    return { rawBody, headers };
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
    setClockOffset: (seconds) => void (clockOffsetSec = seconds),
    review(applicantId, r) {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`fake sumsub: no applicant ${applicantId}`);
      if ("pending" in r) a.review = { reviewStatus: r.pending };
      else {
        a.info = r.info ?? a.info;
        a.phone = r.phone ?? a.phone;
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
