import { NextResponse } from "next/server";
import { loadConsent } from "../consent";

export const dynamic = "force-dynamic";

const NO_STORE = { "cache-control": "no-store" };

/**
 * GET /wallet/present/<id>/status: the consent page's poll while the person's wallet answers.
 * Only the status (pending, verified, refused, declined, expired): no claim, no value.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ presentationId: string }> }) {
  const { presentationId } = await params;
  const consent = await loadConsent(presentationId);
  if (!consent)
    return NextResponse.json(
      { error: { code: "NOT_FOUND", message: "Presentation request not found." } },
      { status: 404, headers: NO_STORE },
    );
  return NextResponse.json({ status: consent.status }, { headers: NO_STORE });
}
