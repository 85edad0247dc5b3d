"use client";

import { useId } from "react";

export type DayCount = { day: string; count: number };

const n = (v: number) => v.toLocaleString();

/** "3 Mar" for a UTC calendar day ("2026-03-03"), whatever the viewer's zone. */
export const dayLabel = (day: string, opts: Intl.DateTimeFormatOptions = { day: "numeric", month: "short" }) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { ...opts, timeZone: "UTC" });

/** A round ceiling for the scale (1, 2, 5 × 10ⁿ), so the axis label reads as a plain number. */
function niceMax(max: number) {
  if (max <= 5) return 5;
  const step = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * step).find((v) => v >= max)!;
}

/**
 * A bar per UTC day drawn with CSS. The bars are a picture (hidden from screen readers); the
 * summary sentence and the visually hidden table carry the same numbers in words.
 */
export function UsageChart({ title, unit, days, tone }: { title: string; unit: string; days: DayCount[]; tone: "indigo" | "emerald" }) {
  const id = useId();
  const total = days.reduce((s, d) => s + d.count, 0);
  const busiest = days.reduce<DayCount | null>((b, d) => (d.count > (b?.count ?? 0) ? d : b), null);
  const today = days.at(-1);
  const top = niceMax(busiest?.count ?? 0);
  const bar = tone === "indigo" ? "bg-indigo-500" : "bg-emerald-500";
  const summary =
    total === 0
      ? `No ${unit} in the last ${days.length} days.`
      : total === today?.count
        ? `${n(total)} ${unit} in the last ${days.length} days, all of them today.`
        : `${n(total)} ${unit} in the last ${days.length} days; the busiest day was ${dayLabel(busiest!.day)} with ${n(busiest!.count)}. Today so far: ${n(today?.count ?? 0)}.`;
  return (
    <figure aria-labelledby={`${id}-t`} className="min-w-0">
      <figcaption>
        <h3 id={`${id}-t`} className="text-sm font-semibold text-slate-800">
          {title}
        </h3>
        <p className="mt-0.5 text-sm text-slate-600" data-testid={`${unit}-summary`}>
          {summary}
        </p>
      </figcaption>
      <div aria-hidden className="mt-3 flex gap-2">
        <div className="flex w-8 shrink-0 flex-col justify-between pb-5 text-right text-[11px] leading-none text-slate-500 tabular-nums">
          <span>{n(top)}</span>
          <span>0</span>
        </div>
        <div className="min-w-0 flex-1">
          <div className="relative flex h-36 items-end gap-[2px] border-b border-l border-slate-200 sm:gap-1">
            <div className="pointer-events-none absolute inset-x-0 top-0 border-t border-dashed border-slate-200" />
            <div className="pointer-events-none absolute inset-x-0 top-1/2 border-t border-dashed border-slate-100" />
            {days.map((d, i) => (
              <div key={d.day} title={`${dayLabel(d.day)}: ${n(d.count)} ${unit}`} className="flex h-full min-w-0 flex-1 items-end">
                <div
                  className={`w-full rounded-t-sm ${d.count ? bar : "bg-slate-100"} ${i === days.length - 1 ? "" : "opacity-80"}`}
                  style={{ height: d.count ? `max(2px, ${(d.count / top) * 100}%)` : "2px" }}
                />
              </div>
            ))}
          </div>
          <div className="mt-1.5 flex justify-between text-[11px] text-slate-500">
            <span>{days[0] ? dayLabel(days[0].day) : ""}</span>
            <span>Today (UTC)</span>
          </div>
        </div>
      </div>
      {/* A table ignores a 1px height, so the box that hides it is a div. */}
      <div className="sr-only">
        <table>
          <caption>{title}, per UTC day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">{unit[0]!.toUpperCase() + unit.slice(1)}</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <th scope="row">{dayLabel(d.day, { day: "numeric", month: "long", year: "numeric" })}</th>
                <td>{d.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
