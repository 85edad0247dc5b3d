import Link from "next/link";

/** Doc paths the service's own messages name, and the guide page that shows each in the browser. */
const GUIDES: Record<string, { href: string; title: string }> = {
  "docs/webhooks.md": { href: "/docs/guides/webhooks", title: "Receiving webhooks" },
};
const PATHS = new RegExp(
  `(${Object.keys(GUIDES)
    .map((p) => p.replace(/[.]/g, "\\."))
    .join("|")})`,
);

/** A message from the API with the doc paths it names turned into links to the guides. */
export function WithDocLinks({ text }: { text: string }) {
  return (
    <>
      {text.split(PATHS).map((part, i) => {
        const guide = GUIDES[part];
        return guide ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, in order
          <Link key={i} href={guide.href} target="_blank" className="font-medium text-indigo-700 underline underline-offset-2">
            {guide.title}
          </Link>
        ) : (
          part
        );
      })}
    </>
  );
}
