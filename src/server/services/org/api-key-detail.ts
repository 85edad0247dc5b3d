import type { ServiceContext } from "../../context";
import { notFound } from "../../errors";
import { isUuid } from "../../platform/ids";
import { actorNames, auditTrail } from "../audit";
import { apiKeyView } from "./api-keys";

/**
 * One API key of the caller's organization as the console's key page shows it (never its hash):
 * the list's fields plus environment and who created it, by name, and the audit entries made with
 * the key (actor `api_key:<id>`) or about it. Another organization's key, or a malformed id, is 404.
 */
export async function getApiKeyDetail(ctx: ServiceContext, id: string) {
  const key = isUuid(id) ? await ctx.db.apiKey.findFirst({ where: { id: id.toLowerCase(), orgId: ctx.org.id } }) : null;
  if (!key) throw notFound("API key");
  const [names, audit] = await Promise.all([
    actorNames(ctx.db, ctx.org.id, [key.createdBy]),
    auditTrail(ctx.db, ctx.org.id, { subjects: [key.id], actors: [`api_key:${key.id}`] }),
  ]);
  return {
    ...apiKeyView(key),
    environment: key.environment,
    createdBy: key.createdBy,
    createdByName: names.get(key.createdBy) ?? key.createdBy,
    audit,
  };
}
