import { createHmac } from "node:crypto";
import type { SumsubConfig } from "./config";
import { alpha3Of } from "./countries-alpha3";
import { type FetchFn, httpFailure, isCode, type ProviderAnswer, providerFetch, unreadable } from "./http";
import { reviewFromApplicant, SumsubApplicant, verifySumsubCallback } from "./sumsub-review";
import type { KycProvider, StartKybInput } from "./types";

/**
 * Sumsub (https://docs.sumsub.com): every request carries X-App-Token, X-App-Access-Ts (Unix
 * seconds) and X-App-Access-Sig = hex HMAC-SHA256(secret key, ts + METHOD + path?query + body).
 * A person is an applicant created on a level with our person id as externalUserId; they verify
 * in Sumsub's hosted WebSDK (a permalink) and the SDK access token is handed back too.
 */
export type SumsubOptions = SumsubConfig & { timeoutMs: number; fetchFn?: FetchFn };

const LINK_TTL_SEC = 3600;

/** Signs one request the way Sumsub checks it. Exported for the fake, which verifies it independently. */
export function sumsubSignature(secretKey: string, ts: string, method: string, pathWithQuery: string, body: string): string {
  return createHmac("sha256", secretKey)
    .update(ts + method.toUpperCase() + pathWithQuery + body)
    .digest("hex");
}

type SumsubErrorBody = { code?: unknown; errorCode?: unknown; errorName?: unknown };

export function sumsubProvider(opts: SumsubOptions): KycProvider {
  const http = { provider: "sumsub" as const, timeoutMs: opts.timeoutMs, fetchFn: opts.fetchFn };

  // The API root's own path (empty for api.sumsub.com), which is not part of what Sumsub sees behind a forwarding proxy.
  const rootPath = new URL(opts.apiUrl).pathname.replace(/\/+$/, "");

  async function call(method: "GET" | "POST", pathWithQuery: string, body?: unknown): Promise<ProviderAnswer> {
    const text = body === undefined ? "" : JSON.stringify(body);
    const ts = String(Math.floor(Date.now() / 1000));
    // Sign the request-target exactly as fetch will send it: the URL parser re-encodes what
    // encodeURIComponent leaves alone (an apostrophe in a query goes out as %27), and Sumsub checks
    // the bytes it receives.
    const url = new URL(opts.apiUrl + pathWithQuery);
    const target = url.pathname.slice(rootPath.length) + url.search;
    return providerFetch(http, url.href, {
      method,
      headers: {
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        "x-app-token": opts.appToken,
        "x-app-access-ts": ts,
        "x-app-access-sig": sumsubSignature(opts.secretKey, ts, method, target, text),
      },
      body: body === undefined ? undefined : text,
    });
  }

  /**
   * Sumsub errors: {description, code, correlationId, errorCode?, errorName?}; we keep only the
   * codes. Its names are kebab-case, but the signature refusal comes as "app-token-signature
   * mismatch", so spaces become hyphens; a name that still does not fit a code gives way to the
   * numeric errorCode rather than to the bare HTTP status.
   */
  const failure = (a: ProviderAnswer) => {
    const b = (a.json ?? {}) as SumsubErrorBody;
    const name = typeof b.errorName === "string" ? b.errorName.trim().replace(/\s+/g, "-") : undefined;
    return httpFailure("sumsub", a, [name, b.errorCode].find(isCode));
  };

  async function ok(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const a = await call(method, path, body);
    if (a.status < 200 || a.status > 299) throw failure(a);
    return a.json;
  }

  async function applicantByExternalId(externalId: string) {
    const a = SumsubApplicant.safeParse(await ok("GET", `/resources/applicants/-;externalUserId=${encodeURIComponent(externalId)}/one`));
    if (!a.success) throw unreadable("sumsub", "applicant");
    return a.data;
  }

  /**
   * Creates the applicant, or finds the one a lost earlier answer created (Sumsub answers 409 for a
   * second applicant with the same externalUserId), so a retry after a timeout is safe.
   */
  async function createApplicant(levelName: string, externalId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await call("POST", `/resources/applicants?levelName=${encodeURIComponent(levelName)}`, {
      externalUserId: externalId,
      ...extra,
    });
    if (res.status === 409) return (await applicantByExternalId(externalId)).id;
    if (res.status < 200 || res.status > 299) throw failure(res);
    const a = SumsubApplicant.safeParse(res.json);
    if (!a.success) throw unreadable("sumsub", "applicant");
    return a.data.id;
  }

  async function websdkLink(levelName: string, externalId: string, redirectUrl?: string | null): Promise<string> {
    const body = {
      levelName,
      userId: externalId,
      ttlInSecs: LINK_TTL_SEC,
      ...(redirectUrl ? { redirect: { successUrl: redirectUrl, rejectUrl: redirectUrl } } : {}),
    };
    const url = (await ok("POST", "/resources/sdkIntegrations/levels/-/websdkLink", body)) as { url?: unknown } | null;
    if (typeof url?.url !== "string" || !/^https?:\/\//.test(url.url)) throw unreadable("sumsub", "WebSDK link");
    return url.url;
  }

  return {
    name: "sumsub",
    supportsKyb: true,
    async startKyc(input) {
      const applicantId = await createApplicant(input.levelName, input.externalId);
      const verificationUrl = await websdkLink(input.levelName, input.externalId, input.redirectUrl);
      const token = (await ok("POST", "/resources/accessTokens/sdk", {
        userId: input.externalId,
        levelName: input.levelName,
        ttlInSecs: LINK_TTL_SEC,
      })) as { token?: unknown } | null;
      if (typeof token?.token !== "string" || !token.token) throw unreadable("sumsub", "access token");
      return {
        provider: "sumsub",
        applicantId,
        verificationUrl,
        accessToken: token.token,
        expiresAt: new Date(Date.now() + LINK_TTL_SEC * 1000),
      };
    },
    async fetchReview(applicantId, externalId) {
      const a = SumsubApplicant.safeParse(await ok("GET", `/resources/applicants/${encodeURIComponent(applicantId)}/one`));
      if (!a.success) throw unreadable("sumsub", "applicant");
      return reviewFromApplicant(a.data, externalId);
    },
    async startKyb(input: StartKybInput) {
      const applicantId = await createApplicant(input.levelName, input.externalId, {
        type: "company",
        fixedInfo: { companyInfo: companyInfo(input) },
      });
      const verificationUrl = await websdkLink(input.levelName, input.externalId);
      return { provider: "sumsub", applicantId, verificationUrl, review: null };
    },
    verifyCallback: (rawBody, headers) => verifySumsubCallback(rawBody, headers, opts.webhookSecret),
  };
}

/** Sumsub's companyInfo: countries in alpha-3, the legal address as one line plus its parts. */
function companyInfo(input: StartKybInput) {
  const a = input.address;
  return {
    companyName: input.legalName,
    registrationNumber: input.registrationNumber,
    country: alpha3Of(input.country),
    legalAddress: [a.line1, a.line2, a.postalCode, a.city].filter(Boolean).join(", "),
    address: {
      street: a.line1,
      subStreet: a.line2 ?? undefined,
      town: a.city,
      postCode: a.postalCode ?? undefined,
      country: alpha3Of(a.country),
    },
  };
}
