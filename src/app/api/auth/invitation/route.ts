import { z } from "zod";
import { jsonRoute } from "@/server/auth/json-route";
import { getDb } from "@/server/db/client";
import {
  acceptInvitationWithPasskey,
  acceptInvitationWithPassword,
  invitationPasskeyOptions,
  invitationTotpSecret,
  viewInvitation,
} from "@/server/services/org";

export const dynamic = "force-dynamic";

const Token = z.string().min(1).max(200);

const Step = z.discriminatedUnion("step", [
  z.object({ step: z.literal("view"), token: Token }),
  z.object({ step: z.literal("passkey-options"), token: Token }),
  z.object({
    step: z.literal("passkey"),
    token: Token,
    challengeId: z.string().max(64),
    response: z.looseObject({ id: z.string().max(1000) }),
  }),
  z.object({ step: z.literal("totp"), token: Token }),
  z.object({
    step: z.literal("password"),
    token: Token,
    password: z.string().min(12).max(200),
    code: z.string().min(1).max(20),
  }),
]);

/** The steps of accepting an invitation (/console/invite/<token>), each checked against the token. */
export const POST = jsonRoute(Step, async (input, clientIp) => {
  const db = await getDb();
  switch (input.step) {
    case "view":
      return viewInvitation(db, input.token, clientIp);
    case "passkey-options":
      return invitationPasskeyOptions(db, input.token, clientIp);
    case "passkey":
      return acceptInvitationWithPasskey(
        db,
        { token: input.token, challengeId: input.challengeId, response: input.response as never },
        clientIp,
      );
    case "totp":
      return invitationTotpSecret(db, input.token, clientIp);
    case "password":
      return acceptInvitationWithPassword(db, input, clientIp);
  }
});
