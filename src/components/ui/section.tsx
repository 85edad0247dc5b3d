/** A titled card of a console page (settings, screening): the heading names the region for screen readers. */
export function Section({
  title,
  id,
  children,
  description,
}: {
  title: string;
  id: string;
  description?: string;
  children: React.ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id} className="font-semibold">
        {title}
      </h2>
      {description && <p className="mt-1 text-sm text-slate-600">{description}</p>}
      <div className="mt-4">{children}</div>
    </section>
  );
}
