import type { SignIn } from "./use-sign-in";

type Input = Omit<React.InputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onChange">;

/** One field of a sign-in step: its label, its input bound to the form by id, and the words of its failed check. */
export function StepField({ s, id, label, ...input }: { s: SignIn; id: keyof SignIn["form"]; label: string } & Input) {
  const problem = s.field(id);
  return (
    <div>
      <label htmlFor={id} className="label">
        {label}
      </label>
      <input id={id} {...input} value={s.form[id]} onChange={s.set(id)} {...problem.attrs} />
      {problem.line}
    </div>
  );
}
