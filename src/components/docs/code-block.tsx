import { CopyButton } from "@/components/ui/copy-button";

/**
 * A code block with a caption bar (language, or the file it quotes) and a copy button. Long lines
 * scroll inside the block, never the page.
 */
export function CodeBlock({ code, caption, copyLabel = "Copy" }: { code: string; caption?: string; copyLabel?: string }) {
  return (
    <figure className="my-3 min-w-0 overflow-hidden rounded-lg border border-slate-800 bg-slate-900">
      <figcaption className="flex items-center justify-between gap-2 border-b border-slate-700/70 bg-slate-800 px-3 py-1.5">
        <span className="truncate font-mono text-xs text-slate-300">{caption ?? ""}</span>
        <CopyButton value={code} label={copyLabel} />
      </figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a block that scrolls sideways must take keyboard focus to be scrolled without a mouse (WCAG 2.1.1) */}
      <pre tabIndex={0} className="max-h-[32rem] overflow-auto p-3 text-[13px] leading-relaxed text-slate-100">
        <code className="font-mono">{code}</code>
      </pre>
    </figure>
  );
}
