import fs from "node:fs";
import path from "node:path";

/** The folder of the API guide (docs/api): its index and the guides under guides/. */
export const API_DOCS_DIR = path.resolve(import.meta.dirname, "../docs/api");

export type FencedBlock = { lang: string; meta: string; code: string; line: number };

/** The fenced code blocks of a markdown text in order: language, the rest of the info string, the code. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const closes = (line: string) => {
      const t = line.trim();
      return t.length >= fence.length && t === fence[0]!.repeat(t.length);
    };
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !closes(lines[j]!); j++) body.push(lines[j]!);
    blocks.push({ lang: open[2] ?? "", meta: (open[3] ?? "").trim(), code: body.join("\n"), line: i + 1 });
    i = j;
  }
  return blocks;
}

/** Every markdown file under docs/api, relative to the repository root. */
export function apiMarkdownFiles(dir = API_DOCS_DIR): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...apiMarkdownFiles(full));
    else if (e.name.endsWith(".md")) out.push(full);
  }
  return out.sort();
}
