import type { Step } from "./signup-state";

const STAGES = [
  { label: "Work email", steps: ["email"] },
  { label: "Confirm code", steps: ["code"] },
  { label: "Plan and organization", steps: ["plan", "payment"] },
] as const;

/** "Step 2 of 3" and the three stages; finished signups show every stage done. */
export function Progress({ step }: { step: Step }) {
  const done = step === "revealed" || step === "lead";
  const at = done ? STAGES.length : STAGES.findIndex((s) => (s.steps as readonly Step[]).includes(step));
  return (
    <nav aria-label="Signup progress" className="mt-6">
      <p className="text-sm font-medium text-slate-600" data-testid="signup-progress">
        {done ? "All 3 steps done" : `Step ${at + 1} of ${STAGES.length}: ${STAGES[at]!.label}`}
      </p>
      <ol className="mt-2 grid grid-cols-3 gap-2">
        {STAGES.map((s, i) => (
          <li key={s.label} aria-current={i === at ? "step" : undefined}>
            <div className={`h-1.5 rounded-full ${i < at ? "bg-indigo-600" : i === at ? "bg-indigo-400" : "bg-slate-200"}`} />
            <span className={`mt-1.5 hidden text-xs sm:block ${i <= at ? "text-slate-700" : "text-slate-600"}`}>{s.label}</span>
          </li>
        ))}
      </ol>
    </nav>
  );
}
