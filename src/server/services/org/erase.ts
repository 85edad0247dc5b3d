import { Prisma } from "@/generated/prisma/client.ts";
import type { Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { revokeOrganizationBindings } from "../credential-status";

export type ErasureReceipt = {
  organizationId: string;
  erasedAt: string;
  /** Bindings revoked by the erasure (those not revoked before): their credentials read revoked from now on. */
  credentialsRevoked: number;
  /** Rows deleted per table (tables with none are left out). */
  rows: Record<string, number>;
};

/** Tables whose rows belong to an organization through a key that contains its id, not an `orgId` column. */
const KEYED_ROWS = [
  { table: "usage_days", column: "bucket" },
  { table: "rate_limit_windows", column: "bucket" },
  { table: "idempotency_records", column: "scope" },
] as const;

/**
 * Deletes every record of one organization, at the end of its agreement (docs/operations.md,
 * "Deleting an organization"): each table that has an `orgId` column (found in the catalog, so a
 * table added later is covered without a change here), the counters and idempotency records keyed
 * by its id, then the organization itself. One transaction: it all goes, or nothing does. The
 * organization's name must be given back exactly, so a mistyped id cannot erase a tenant.
 * Before anything is deleted, every binding is revoked (revocation bit set, suspension bit
 * cleared), so the credentials the organization issued read revoked in the shared status lists,
 * which stay published (docs/decisions.md, "Credential status").
 * Global reference data (screening lists, status lists) and other organizations' rows are untouched.
 */
export async function eraseOrganization(db: Db, input: { organizationId: string; confirmName: string }): Promise<ErasureReceipt> {
  return db.$transaction(
    async (tx) => {
      const [org] = await tx.$queryRaw<{ name: string }[]>`
        SELECT name FROM organizations WHERE id = ${input.organizationId}::uuid FOR UPDATE`;
      if (!org) throw notFound("The organization");
      if (org.name !== input.confirmName)
        throw new AppError("VALIDATION_ERROR", "The name given does not match the organization's name; nothing was deleted.");
      const at = new Date();
      const credentialsRevoked = await revokeOrganizationBindings(
        tx,
        input.organizationId,
        "organization deleted",
        "system:org-delete",
        at,
      );

      const tables = await tx.$queryRaw<{ table_name: string }[]>`
        SELECT table_name::text FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name = 'orgId' AND table_name <> 'organizations'
        ORDER BY table_name`;
      const rows: Record<string, number> = {};
      // Rows of one table may point at another's: delete what nothing points at first, and retry the
      // rest after each pass (a refused delete is undone to its savepoint, not the whole transaction).
      let pending = tables.map((t) => t.table_name);
      while (pending.length) {
        const refused: string[] = [];
        for (const table of pending) {
          await tx.$executeRawUnsafe("SAVEPOINT erase_table");
          try {
            const n = await tx.$executeRawUnsafe(`DELETE FROM "${table}" WHERE "orgId" = $1::uuid`, input.organizationId);
            await tx.$executeRawUnsafe("RELEASE SAVEPOINT erase_table");
            if (n) rows[table] = (rows[table] ?? 0) + n;
          } catch (err) {
            await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT erase_table");
            if (!isForeignKeyViolation(err)) throw err;
            refused.push(table);
          }
        }
        if (refused.length === pending.length) throw new Error(`cannot erase: rows of ${refused.join(", ")} are still referenced`);
        pending = refused;
      }
      for (const { table, column } of KEYED_ROWS) {
        const n = await tx.$executeRawUnsafe(`DELETE FROM "${table}" WHERE "${column}" LIKE '%' || $1 || '%'`, input.organizationId);
        if (n) rows[table] = (rows[table] ?? 0) + n;
      }
      rows.organizations = await tx.$executeRaw`DELETE FROM organizations WHERE id = ${input.organizationId}::uuid`;
      return { organizationId: input.organizationId, erasedAt: at.toISOString(), credentialsRevoked, rows };
    },
    { timeout: 10 * 60_000, maxWait: 30_000 },
  );
}

function isForeignKeyViolation(err: unknown): boolean {
  const text =
    err instanceof Prisma.PrismaClientKnownRequestError ? `${err.code} ${JSON.stringify(err.meta ?? {})} ${err.message}` : String(err);
  return /23503|P2003|foreign key/i.test(text);
}
