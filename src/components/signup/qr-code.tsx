import { encode } from "uqr";

/**
 * A QR code drawn as an inline SVG of rectangles (one per run of dark modules in a row): no
 * canvas, no data: URL, nothing the page's CSP would have to allow.
 */
export function QrCode({ value, label, className = "h-24 w-24" }: { value: string; label: string; className?: string }) {
  const { size, data } = encode(value, { ecc: "M", border: 2 });
  const runs: { x: number; y: number; w: number }[] = [];
  data.forEach((row, y) => {
    let x = 0;
    while (x < size) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < size && row[x]) x++;
      runs.push({ x: start, y, w: x - start });
    }
  });
  return (
    <svg
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label={label}
      shapeRendering="crispEdges"
      className={`shrink-0 bg-white ${className}`}
    >
      <title>{label}</title>
      <rect width={size} height={size} fill="#fff" />
      {runs.map((r) => (
        <rect key={`${r.x}-${r.y}`} x={r.x} y={r.y} width={r.w} height={1} fill="#0f172a" />
      ))}
    </svg>
  );
}
