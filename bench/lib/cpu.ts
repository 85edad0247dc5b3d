import fs from "node:fs";
import type pg from "pg";

/** Linux reports process CPU in clock ticks of 1/100 s (CLK_TCK is 100 on every Linux we run). */
const TICK_MS = 10;

/** User + system CPU milliseconds a process has used so far (0 once it is gone). */
export function processCpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU of the PostgreSQL backends serving one database, by pid: only this bench's sessions, not
 * other work on the same server. Backends that ended between two readings are not counted.
 */
export async function databaseCpu(admin: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [database]);
  return new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)]));
}

/** Milliseconds used between two readings of databaseCpu. */
export const cpuBetween = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, ms]) => sum + Math.max(0, ms - (before.get(pid) ?? 0)), 0);
