/** The address being signed in, with a way back to the email step. */
export function SigningInAs({ email, onChange }: { email: string; onChange: () => void }) {
  return (
    <div className="flex items-center justify-between gap-3 rounded-md bg-slate-50 px-3 py-2 text-sm">
      <span className="min-w-0 truncate">
        <span className="sr-only">Signing in as </span>
        <strong className="font-medium">{email}</strong>
      </span>
      <button type="button" className="shrink-0 text-indigo-700 underline-offset-2 hover:underline" onClick={onChange}>
        Change
      </button>
    </div>
  );
}
