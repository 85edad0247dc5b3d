import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/options";

export const dynamic = "force-dynamic";

// next-auth v4 reads the App Router's (req, ctx) pair; options are built per request so the
// environment (secret, secure cookies) is read at run time, not at build time.
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(req as never, { params: await ctx.params } as never, authOptions());
}

export { handler as GET, handler as POST };
