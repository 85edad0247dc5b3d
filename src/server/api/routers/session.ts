import { consoleProcedure, router } from "../trpc";

/** Who is signed in, for the layout: the role is the member row's, read on this request. */
export const sessionRouter = router({
  me: consoleProcedure("viewer").query(({ ctx }) => {
    const { actor, org } = ctx.svc;
    if (actor.type !== "member") throw new Error("unreachable: console procedures admit members only");
    return { email: actor.email, role: actor.role, organizationId: org.id, organizationName: org.name, environment: org.environment };
  }),
});
