import Link from "next/link";
import type { Components } from "react-markdown";
import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./code-block";
import { guideBySlug } from "./guides";

type HastNode = {
  type: string;
  tagName?: string;
  value?: string;
  data?: { meta?: string };
  properties?: { className?: unknown };
  children?: HastNode[];
};

const textOf = (n: HastNode | undefined): string => (n?.type === "text" ? (n.value ?? "") : (n?.children ?? []).map(textOf).join(""));

/** The same anchors a code host gives headings: lower case, punctuation dropped, spaces to dashes. */
export const headingId = (text: string) =>
  text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");

/** A link written relative to docs/api/guides/, as a path from the repository root. */
function repoPath(relative: string): string {
  const parts = ["docs", "api", "guides"];
  for (const seg of relative.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg && seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

/**
 * Links as written for a code host, made to work on the site: `other-guide.md#part` goes to that
 * guide's page; a link to another file of the repository is shown as its path (the site does not
 * serve repository files); absolute links stay as they are.
 */
function SiteLink({ href = "", children }: { href?: string; children?: React.ReactNode }) {
  if (/^(https?:|mailto:)/.test(href)) {
    return (
      <a href={href} className="font-medium text-indigo-700 underline underline-offset-2" rel="noreferrer">
        {children}
      </a>
    );
  }
  if (href.startsWith("#")) {
    return (
      <a href={href} className="font-medium text-indigo-700 underline underline-offset-2">
        {children}
      </a>
    );
  }
  const [file, fragment] = href.split("#");
  const guide = /^(?:\.\/)?([a-z0-9-]+)\.md$/.exec(file ?? "");
  if (guide && guideBySlug(guide[1]!)) {
    return (
      <Link
        href={`/docs/guides/${guide[1]}${fragment ? `#${fragment}` : ""}`}
        className="font-medium text-indigo-700 underline underline-offset-2"
      >
        {children}
      </Link>
    );
  }
  return (
    <span>
      {children} <span className="font-mono text-xs text-slate-500">({repoPath(file ?? "")} in the repository)</span>
    </span>
  );
}

const heading =
  (Tag: "h2" | "h3" | "h4", className: string) =>
  ({ children, node }: { children?: React.ReactNode; node?: unknown }) => {
    const id = headingId(textOf(node as HastNode));
    return (
      <Tag id={id} className={`group scroll-mt-20 ${className}`}>
        {children}
        <a
          href={`#${id}`}
          aria-label="Link to this section"
          className="ml-2 text-slate-300 no-underline opacity-0 group-hover:opacity-100 focus:opacity-100"
        >
          #
        </a>
      </Tag>
    );
  };

const components: Components = {
  h1: ({ children }) => <h1 className="text-3xl font-bold tracking-tight text-slate-900">{children}</h1>,
  h2: heading("h2", "mt-10 border-b border-slate-200 pb-1 text-xl font-semibold tracking-tight text-slate-900"),
  h3: heading("h3", "mt-7 text-lg font-semibold text-slate-900"),
  h4: heading("h4", "mt-5 font-semibold text-slate-900"),
  p: ({ children }) => <p className="mt-3 leading-7 text-slate-700">{children}</p>,
  a: ({ href, children }) => <SiteLink href={href}>{children}</SiteLink>,
  ul: ({ children }) => <ul className="mt-3 list-disc space-y-1.5 pl-6 text-slate-700">{children}</ul>,
  ol: ({ children }) => <ol className="mt-3 list-decimal space-y-1.5 pl-6 text-slate-700">{children}</ol>,
  li: ({ children }) => <li className="leading-7">{children}</li>,
  blockquote: ({ children }) => (
    <blockquote className="mt-4 border-l-4 border-indigo-200 bg-indigo-50/50 px-4 py-1 text-slate-700">{children}</blockquote>
  ),
  table: ({ children }) => (
    <div className="mt-4 overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-left text-sm">{children}</table>
    </div>
  ),
  thead: ({ children }) => <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">{children}</thead>,
  th: ({ children }) => <th className="px-3 py-2 font-semibold">{children}</th>,
  td: ({ children }) => <td className="border-t border-slate-100 px-3 py-2 align-top text-slate-700">{children}</td>,
  code: ({ children }) => (
    <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] break-words text-slate-800">{children}</code>
  ),
  pre: ({ node }) => {
    const code = (node as HastNode | undefined)?.children?.find((c) => c.tagName === "code");
    const className = code?.properties?.className;
    const lang = Array.isArray(className) ? String(className[0] ?? "").replace(/^language-/, "") : "";
    const file = /(?:^|\s)file=(\S+)/.exec(code?.data?.meta ?? "")?.[1];
    return <CodeBlock code={textOf(code).replace(/\n$/, "")} caption={file ?? (lang || "text")} />;
  },
  hr: () => <hr className="my-8 border-slate-200" />,
};

/** A guide's markdown as a page: GitHub-flavoured markdown, no raw HTML. */
export function Markdown({ source }: { source: string }) {
  return (
    <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
      {source}
    </ReactMarkdown>
  );
}
