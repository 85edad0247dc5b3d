import { z } from "zod";
import * as members from "../../services/org";
import { AddMemberInput, MemberEmailParams, UpdateMemberInput } from "../../services/org";
import { consoleProcedure, router } from "../trpc";

export const membersRouter = router({
  list: consoleProcedure("admin").query(({ ctx }) => members.listMembersForConsole(ctx.svc)),
  add: consoleProcedure("admin")
    .input(AddMemberInput)
    .mutation(({ ctx, input }) => members.addMember(ctx.svc, input)),
  update: consoleProcedure("admin")
    .input(z.object({ email: MemberEmailParams.shape.email, patch: UpdateMemberInput }))
    .mutation(({ ctx, input }) => members.updateMember(ctx.svc, input.email, input.patch)),
  remove: consoleProcedure("admin")
    .input(MemberEmailParams)
    .mutation(({ ctx, input }) => members.removeMember(ctx.svc, input.email)),
  resendInvitation: consoleProcedure("admin")
    .input(MemberEmailParams)
    .mutation(({ ctx, input }) => members.resendInvitation(ctx.svc, input.email)),
  endSessions: consoleProcedure("admin")
    .input(MemberEmailParams)
    .mutation(({ ctx, input }) => members.endMemberSessions(ctx.svc, input.email)),
});
