const METHOD_COLORS: Record<string, string> = {
  get: "bg-sky-100 text-sky-800",
  post: "bg-emerald-100 text-emerald-800",
  put: "bg-amber-100 text-amber-800",
  patch: "bg-violet-100 text-violet-800",
  delete: "bg-rose-100 text-rose-800",
};

export function MethodBadge({ method, small }: { method: string; small?: boolean }) {
  return (
    <span
      className={`inline-block shrink-0 rounded text-center font-mono font-bold uppercase ${small ? "w-12 px-1 text-[10px]" : "min-w-14 px-2 py-0.5 text-xs"} ${METHOD_COLORS[method] ?? "bg-slate-100"}`}
    >
      {method}
    </span>
  );
}

export function ScopeBadge({ scope }: { scope: string }) {
  const isPublic = scope === "public";
  return (
    <span
      className={`shrink-0 rounded-full px-2 py-0.5 text-xs ${isPublic ? "bg-slate-100 text-slate-600" : "bg-indigo-50 text-indigo-800 ring-1 ring-indigo-200"}`}
    >
      {isPublic ? "public" : `scope: ${scope}`}
    </span>
  );
}
