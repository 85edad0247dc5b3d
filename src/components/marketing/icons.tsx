/** Line icons for the public pages, drawn in SVG (no icon font, no external images). */
const PATHS = {
  person: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Zm-7 8a7 7 0 0 1 14 0",
  key: "M14.5 9.5a4.5 4.5 0 1 0-3.9 4.46L9 15.5V18H6.5v2.5H4v-3l6.04-6.04A4.5 4.5 0 0 0 14.5 9.5Zm1-1.5h.01",
  credential: "M4 5h16v14H4zM8 10h8M8 14h5m4.5 1.5 1.5 1.5 2.5-3",
  radar: "M11 4a7 7 0 1 0 4.95 11.95L20 20M11 8a3 3 0 1 0 0 6 3 3 0 0 0 0-6Z",
  chain: "M9 7H7a4 4 0 0 0 0 8h2m6-8h2a4 4 0 0 1 0 8h-2M8 11h8",
  shield: "M12 3 5 6v5c0 4.5 3 8.3 7 10 4-1.7 7-5.5 7-10V6l-7-3Zm-3 9 2 2 4-4",
  signature: "M4 17c3-6 5-9 6-9s-1 6 1 6 3-4 4-4 0 3 1 3 2-1 4-2M4 20h16",
  network: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18Zm-9 9h18M12 3c2.5 2.5 3.5 5.5 3.5 9S14.5 18.5 12 21c-2.5-2.5-3.5-5.5-3.5-9S9.5 5.5 12 3Z",
  archive: "M4 5h16v4H4zM6 9v10h12V9M10 13h4",
  eyeOff:
    "M4 4l16 16M10.6 6.1A9.8 9.8 0 0 1 12 6c5 0 8.5 4.5 9 6-.3.8-1.3 2.5-3 3.9M6.4 7.9C4.6 9.2 3.3 11 3 12c.5 1.5 4 6 9 6 1.6 0 3-.4 4.2-1.1M9.9 9.9a3 3 0 0 0 4.2 4.2",
  check: "M5 12.5 10 17 19 7",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, className = "h-5 w-5" }: { name: IconName; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={className}
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.7"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
