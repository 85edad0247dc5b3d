import crypto from "node:crypto";
import { bodyOf, type FakeAnswer, type FakeFailureMode, type FakeRequest, failureSwitch, fakeControls, startFakeServer } from "./fake-http";
import type { FakeCallback } from "./fake-sumsub";

export type FakeVeriffDecision = {
  status: "approved" | "declined" | "resubmission_requested" | "expired" | "abandoned" | "review";
  /** Sent as given: Veriff's docs call it a string, and integrations have seen numbers too. */
  reasonCode?: number | string | null;
  person?: { firstName?: string; lastName?: string; dateOfBirth?: string; nationality?: string };
  documentCountry?: string;
  /** The document's number; by default one of the session's own, so two sessions are two documents. */
  documentNumber?: string;
  riskLabels?: { label: string; category: string }[];
};

export type FakeVeriffSession = {
  id: string;
  vendorData: string;
  callback: string | null;
  url: string;
  sessionToken: string;
  decision: FakeVeriffDecision | null;
};

export type FakeVeriffRequest = { method: string; path: string; body: unknown; status: number };

export type FakeVeriff = {
  url: string;
  apiKey: string;
  sharedSecret: string;
  sessions: Map<string, FakeVeriffSession>;
  requests: FakeVeriffRequest[];
  setMode(mode: FakeFailureMode): void;
  failNext(mode: FakeFailureMode, n: number): void;
  /**
   * The next n session creations are carried out (the session exists at Veriff) and then their
   * answer is lost: a 502 from the gateway in front of Veriff, or no answer at all ("hang"), as when
   * a connection drops after the request was sent.
   */
  loseAnswerAfterCreating(mode: "bad_gateway" | "hang", n: number): void;
  /** Makes a decision on a session, as Veriff's checks (or reviewers) would. */
  decide(sessionId: string, d: FakeVeriffDecision): void;
  /** The decision webhook for the session's current decision, signed as Veriff signs it. */
  decisionWebhook(sessionId: string): FakeCallback;
  /** An event webhook (started, submitted), signed. */
  eventWebhook(sessionId: string, action: "started" | "submitted"): FakeCallback;
  /** The decision webhook signed with a secret that is not ours. */
  forgedWebhook(sessionId: string): FakeCallback;
  send(url: string, cb: FakeCallback): Promise<number>;
  close(): Promise<void>;
};

const hmac = (secret: string, data: string) => crypto.createHmac("sha256", secret).update(data).digest("hex");
const fail = (status: number, code: string, message: string): FakeAnswer => ({ status, json: { status: "fail", code, message } });

/**
 * A local stand-in for Veriff's public API: checks X-AUTH-CLIENT and X-HMAC-SIGNATURE (HMAC-SHA256
 * of the body for POST, of the session id for GET) with Veriff's error codes (1801, 1803, 1818,
 * 1819), validates the session body, keeps sessions and decisions, and builds signed webhooks.
 */
export async function startFakeVeriff(): Promise<FakeVeriff> {
  const apiKey = crypto.randomUUID();
  const sharedSecret = crypto.randomBytes(16).toString("hex");
  const sessions = new Map<string, FakeVeriffSession>();
  const requests: FakeVeriffRequest[] = [];
  const failures = failureSwitch();
  const lostAnswers: ("bad_gateway" | "hang")[] = [];

  function route(r: FakeRequest, body: any): FakeAnswer | null {
    const client = r.headers["x-auth-client"];
    if (!client) return fail(401, "1801", "Mandatory X-AUTH-CLIENT header containing the API key is missing from the request.");
    if (client !== apiKey) return fail(401, "1803", "Integration with the API key was not found.");
    const sig = String(r.headers["x-hmac-signature"] ?? "");
    const path = r.path.split("?")[0]!;
    if (r.method === "POST" && path === "/v1/sessions") {
      if (sig !== hmac(sharedSecret, r.raw))
        return fail(401, "1819", "Signature does not match the HMAC-SHA256 of request body and integration API secret.");
      const v = body?.verification;
      if (!v || typeof v !== "object") return fail(400, "1102", "Mandatory parameters are missing from the request.");
      if (v.vendorData !== undefined && (typeof v.vendorData !== "string" || v.vendorData.length > 1000))
        return fail(400, "1501", "vendorData must be a string.");
      if (v.callback !== undefined && !/^https?:\/\//.test(String(v.callback)))
        return fail(400, "1104", "Request includes invalid parameters.");
      const token = crypto.randomBytes(24).toString("base64url");
      const s: FakeVeriffSession = {
        id: crypto.randomUUID(),
        vendorData: v.vendorData ?? "",
        callback: v.callback ?? null,
        url: `https://alchemy.veriff.com/v/${token}`,
        sessionToken: token,
        decision: null,
      };
      sessions.set(s.id, s);
      const lost = lostAnswers.shift();
      if (lost === "bad_gateway") return { status: 502, headers: { "content-type": "text/html" }, body: "<html>502 Bad Gateway</html>" };
      if (lost === "hang") return null;
      return {
        status: 201,
        json: {
          status: "success",
          verification: {
            id: s.id,
            url: s.url,
            vendorData: s.vendorData,
            host: "https://alchemy.veriff.com",
            status: "created",
            sessionToken: s.sessionToken,
          },
        },
      };
    }
    const m = path.match(/^\/v1\/sessions\/([^/]+)\/decision$/);
    if (r.method === "GET" && m) {
      const id = decodeURIComponent(m[1]!);
      if (sig !== hmac(sharedSecret, id))
        return fail(401, "1818", "Signature does not match the HMAC-SHA256 of query ID and integration API secret.");
      const s = sessions.get(id);
      if (!s) return fail(404, "1404", "Session not found.");
      return { status: 200, json: { status: "success", verification: s.decision ? verificationOf(s) : null } };
    }
    return fail(404, "1404", "Not found.");
  }

  function verificationOf(s: FakeVeriffSession) {
    const d = s.decision!;
    const codes: Record<string, number> = {
      approved: 9001,
      declined: 9102,
      resubmission_requested: 9103,
      expired: 9104,
      abandoned: 9104,
      review: 9121,
    };
    return {
      id: s.id,
      attemptId: crypto.randomUUID(),
      vendorData: s.vendorData,
      endUserId: null,
      status: d.status,
      code: codes[d.status],
      reason: d.reasonCode != null ? "See reason code" : null,
      reasonCode: d.reasonCode ?? null,
      decisionTime: new Date().toISOString(),
      acceptanceTime: new Date().toISOString(),
      person: d.person ? { idNumber: null, gender: null, ...d.person } : null,
      document: d.documentCountry
        ? {
            number: d.documentNumber ?? `X${s.id.replace(/-/g, "").slice(0, 8).toUpperCase()}`,
            type: "PASSPORT",
            country: d.documentCountry,
            validFrom: null,
            validUntil: "2031-01-01",
          }
        : null,
      riskLabels: d.riskLabels ?? [],
      comments: [],
      additionalVerifiedData: {},
    };
  }

  const server = await startFakeServer((r) => {
    const body = bodyOf(r);
    const mode = failures.current();
    let out: FakeAnswer | null;
    if (mode === "hang") out = null;
    else if (mode === "unavailable") out = { ...fail(503, "5000", "Service unavailable"), headers: { "retry-after": "12" } };
    else if (mode === "server_error") out = fail(500, "5000", "Internal error");
    else if (mode === "rate_limited") out = { ...fail(429, "1429", "Too many requests"), headers: { "retry-after": "7" } };
    else out = route(r, body);
    requests.push({ method: r.method, path: r.path, body, status: out?.status ?? 0 });
    return out;
  });

  function sign(body: unknown, secret: string): FakeCallback {
    const rawBody = Buffer.from(JSON.stringify(body), "utf8");
    return {
      rawBody,
      headers: new Headers({
        "content-type": "application/json",
        "x-auth-client": apiKey,
        "x-hmac-signature": hmac(secret, rawBody.toString("utf8")),
      }),
    };
  }
  const session = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new Error(`fake veriff: no session ${id}`);
    return s;
  };
  const decisionBody = (id: string) => ({
    status: "success",
    verification: verificationOf(session(id)),
    technicalData: { ip: "192.0.2.1" },
  });

  return {
    ...fakeControls(server, failures),
    apiKey,
    sharedSecret,
    sessions,
    requests,
    loseAnswerAfterCreating: (mode, n) => void lostAnswers.push(...Array.from({ length: n }, () => mode)),
    decide: (id, d) => void (session(id).decision = d),
    decisionWebhook: (id) => sign(decisionBody(id), sharedSecret),
    eventWebhook: (id, action) =>
      sign(
        {
          id,
          attemptId: crypto.randomUUID(),
          feature: "selfid",
          code: action === "started" ? 7001 : 7002,
          action,
          vendorData: session(id).vendorData,
          endUserId: null,
        },
        sharedSecret,
      ),
    forgedWebhook: (id) => sign(decisionBody(id), crypto.randomBytes(16).toString("hex")),
  };
}
