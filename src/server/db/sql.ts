import { Prisma } from "@/generated/prisma/client.ts";

/**
 * A time for a `timestamp(3)` column (Prisma's DateTime: UTC wall time without a zone) in raw
 * SQL, independent of the session's TimeZone setting.
 */
export const utcTimestamp = (d: Date): Prisma.Sql => Prisma.sql`(${d.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

/** A time for a `timestamptz` column in raw SQL. */
export const timestampTz = (d: Date): Prisma.Sql => Prisma.sql`${d.toISOString()}::timestamptz`;

/** Prisma.join that accepts no parts (nothing then), for statements with optional pieces. */
export const joinSql = (parts: Prisma.Sql[], separator = ""): Prisma.Sql => (parts.length ? Prisma.join(parts, separator) : Prisma.empty);
