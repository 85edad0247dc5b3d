import { actorId, type ServiceContext } from "../../context";
import { appendAudit } from "../audit";
import { caseEvent } from "./case-events";
import { lockedCase } from "./case-records";
import { caseTexts } from "./case-text";
import type { AddCommentInput } from "./casework.schema";

/**
 * POST /v1/aml/cases/{caseId}/comments: a note on a case, open or closed. The text lives in
 * aml_case_comments only, sealed under the data key of the case's person (case-text.ts): the
 * timeline event and the audit entry carry its id and length, and nothing logs it.
 */
export async function addComment(ctx: ServiceContext, caseId: string, input: AddCommentInput) {
  const orgId = ctx.org.id;
  const me = actorId(ctx.actor);
  return ctx.db.$transaction(
    async (tx) => {
      const c = await lockedCase(tx, orgId, caseId);
      const texts = await caseTexts(tx, c);
      const comment = await tx.amlCaseComment.create({
        data: { orgId, caseId: c.id, author: me, body: texts.seal(input.text), createdAt: ctx.now() },
      });
      const data = { commentId: comment.id, length: input.text.length };
      await caseEvent(tx, { orgId, caseId: c.id, kind: "comment", actor: me, data });
      await appendAudit(
        tx,
        { orgId, actor: ctx.actor },
        { action: "aml.comment_added", subjectType: "person", subject: c.subjectDid, data: { caseId: c.id, ...data } },
      );
      return {
        commentId: comment.id,
        caseId: c.id,
        author: me,
        text: texts.open(comment.body),
        createdAt: comment.createdAt.toISOString(),
      };
    },
    { timeout: 20_000, maxWait: 10_000 },
  );
}
