import pg from "pg";

/**
 * Bench mode only (BI_BENCH_COUNT_QUERIES=1): counts every statement a pg client sends, i.e. every
 * database round trip (BEGIN and COMMIT included), so the bench can divide by the requests it
 * made. The bench reads the count by sending SIGUSR2; the answer is one stderr line.
 */
export function installBenchQueryCounter(): void {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown; __biCounted?: boolean };
  if (proto.__biCounted) return;
  proto.__biCounted = true;
  let count = 0;
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    count++;
    return original.apply(this, args);
  };
  process.on("SIGUSR2", () => process.stderr.write(`BENCH_DB_QUERIES ${count}\n`));
}
