import { consoleSession } from "../../services/org";
import { consoleProcedure, router } from "../trpc";

/** Who is signed in, for the layout: the role is the member row's, read on this request. */
export const sessionRouter = router({
  me: consoleProcedure("viewer").query(({ ctx }) => consoleSession(ctx.svc)),
});
