import { z } from "zod";
import {
  consoleSession,
  credentialStatus,
  listOwnCredentials,
  listOwnSessions,
  removeOwnCredential,
  revokeOwnSession,
  startOwnCredentialsSetup,
} from "../../services/org";
import { consoleProcedure, router } from "../trpc";

/** Who is signed in, for the layout (the role is the member row's, read on this request), and their own sessions. */
export const sessionRouter = router({
  me: consoleProcedure("viewer").query(({ ctx }) => consoleSession(ctx.svc)),
  credentials: consoleProcedure("viewer").query(({ ctx }) => credentialStatus(ctx.svc)),
  list: consoleProcedure("viewer").query(({ ctx }) => listOwnSessions(ctx.svc)),
  revoke: consoleProcedure("viewer")
    .input(z.strictObject({ sessionId: z.string().max(64) }))
    .mutation(({ ctx, input }) => revokeOwnSession(ctx.svc, input.sessionId)),
  setUpOwnCredentials: consoleProcedure("viewer").mutation(({ ctx }) => startOwnCredentialsSetup(ctx.svc)),
  /** The member's own passkeys and password with authenticator app, for the Security page. */
  ownCredentials: consoleProcedure("viewer").query(({ ctx }) => listOwnCredentials(ctx.svc)),
  removeCredential: consoleProcedure("viewer")
    .input(z.union([z.strictObject({ passkeyId: z.uuid() }), z.strictObject({ password: z.literal(true) })]))
    .mutation(({ ctx, input }) => removeOwnCredential(ctx.svc, input)),
});
