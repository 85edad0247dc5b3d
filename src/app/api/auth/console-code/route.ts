import { type NextRequest, NextResponse } from "next/server";
import { z } from "zod";
import { clientIpFrom } from "@/server/auth/client-ip";
import { getDb } from "@/server/db/client";
import { isAppError } from "@/server/errors";
import { startConsoleSignIn } from "@/server/services/org";

export const dynamic = "force-dynamic";

const Body = z.object({ organizationId: z.string().max(100), email: z.string().max(254), password: z.string().max(200) });

/**
 * Step one of console sign-in: checks the password and, for a member, emails the 6-digit code.
 * JSON only (a cross-site form cannot send it without a CORS preflight, which this never grants).
 */
export async function POST(req: NextRequest) {
  if (!req.headers.get("content-type")?.startsWith("application/json")) {
    return NextResponse.json({ error: { code: "VALIDATION_ERROR", message: "Send JSON." } }, { status: 415 });
  }
  const body = Body.safeParse(await req.json().catch(() => null));
  if (!body.success) return NextResponse.json({ error: { code: "VALIDATION_ERROR", message: "Fill in every field." } }, { status: 400 });
  try {
    return NextResponse.json(await startConsoleSignIn(await getDb(), body.data, clientIpFrom(req.headers)));
  } catch (err) {
    if (!isAppError(err)) throw err;
    return NextResponse.json({ error: { code: err.code, message: err.message } }, { status: err.status });
  }
}
