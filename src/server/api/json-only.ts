/**
 * The console's procedures change state only through JSON POSTs. A browser sends JSON cross-site
 * only after a CORS preflight, which this origin never grants, while a form (urlencoded, multipart
 * or text/plain) is sent without one: refusing every other body type closes that door to forged
 * requests, beside the SameSite session cookie.
 */
export function refuseNonJsonPost(req: Request): Response | null {
  if (req.method !== "POST") return null;
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return null;
  return Response.json(
    {
      error: {
        code: -32600,
        message: "Console calls are JSON: send Content-Type: application/json.",
        data: { code: "UNSUPPORTED_MEDIA_TYPE" },
      },
    },
    { status: 415 },
  );
}
