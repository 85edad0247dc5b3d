import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GUIDES } from "@/components/docs/guides";
import { headingId } from "@/components/docs/markdown";
import { hmacSha256Hex } from "@/server/crypto/hash";
import { verifyCredentialWithDidDocument } from "@/server/crypto/verify-credential";
import { canonicalStringV2 } from "@/server/http/middleware/signing";
import { bindingVcHash } from "@/server/services/accounts/credentials";
import { verifyWithDigitalBazaar } from "@/server/testing/independent-vc-verifier";
import { API_DOCS_DIR, apiMarkdownFiles, fencedBlocks } from "./docs-markdown";

const ROOT = path.resolve(API_DOCS_DIR, "../..");
const files = apiMarkdownFiles();
const read = (file: string) => fs.readFileSync(file, "utf8");
const rel = (file: string) => path.relative(ROOT, file);

/** The markdown without its fenced blocks, so links and headings inside code are not taken for real ones. */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "");
}

/** The markdown with every `file=<path>` block holding that file's current text. */
function requote(markdown: string): string {
  return markdown.replace(
    /^(`{3,})(\S*) file=(\S+)\n[\s\S]*?^\1[ \t]*$/gm,
    (_all, fence: string, lang: string, target: string) =>
      `${fence}${lang} file=${target}\n${read(path.join(ROOT, target)).replace(/\n$/, "")}\n${fence}`,
  );
}

const links = (markdown: string) => [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
const headings = (markdown: string) => [...prose(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => headingId(m[1]!.replace(/`/g, "")));

describe("the API guide in docs/api", () => {
  it("has one file per guide the site lists, and lists every guide file", () => {
    const onDisk = fs
      .readdirSync(path.join(API_DOCS_DIR, "guides"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.replace(/\.md$/, ""))
      .sort();
    expect(onDisk).toEqual(GUIDES.map((g) => g.slug).sort());
    expect(files.map(rel)).toContain("docs/api/README.md");
    // The handed-in interface text is gone; our guide replaces it.
    expect(fs.existsSync(path.join(API_DOCS_DIR, "contract.md"))).toBe(false);
  });

  it("quotes files exactly: a block marked file=<path> holds that file's text", () => {
    // DOCS_QUOTES=write copies each quoted file into its block first (after a deliberate change).
    if (process.env.DOCS_QUOTES === "write") for (const file of files) fs.writeFileSync(file, requote(read(file)));
    const quoted: string[] = [];
    for (const file of files) {
      for (const block of fencedBlocks(read(file))) {
        const target = /(?:^|\s)file=(\S+)/.exec(block.meta)?.[1];
        if (!target) continue;
        const source = path.join(ROOT, target);
        expect(fs.existsSync(source), `${rel(file)}:${block.line} quotes ${target}, which does not exist`).toBe(true);
        expect(block.code, `${rel(file)}:${block.line} differs from ${target}: DOCS_QUOTES=write renews it`).toBe(
          read(source).replace(/\n$/, ""),
        );
        quoted.push(target);
      }
    }
    expect(quoted).toEqual(
      expect.arrayContaining([
        "examples/typescript/client.ts",
        "examples/typescript/quickstart.ts",
        "examples/typescript/verify-webhook.ts",
        "src/server/testing/independent-vc-verifier.ts",
      ]),
    );
  });

  it("links only to files and headings that exist", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const href of links(read(file))) {
        if (/^(https?:|mailto:)/.test(href)) continue;
        checked++;
        const [target, fragment] = href.split("#");
        const resolved = target ? path.resolve(path.dirname(file), decodeURIComponent(target)) : file;
        if (href.startsWith("/") || !fs.existsSync(resolved)) {
          broken.push(`${rel(file)}: ${href}`);
          continue;
        }
        if (fragment && resolved.endsWith(".md") && !headings(read(resolved)).includes(fragment)) {
          broken.push(`${rel(file)}: ${href} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });

  it("the signing guide's worked example is what the service computes", () => {
    const guide = read(path.join(API_DOCS_DIR, "guides/signing.md"));
    const target = "/v1/accounts/name-available?name=alice";
    const canonical = canonicalStringV2("1767225600000", "GET", target, "");
    expect(guide).toContain(canonical);
    expect(guide).toContain(`X-BI-Signature: ${hmacSha256Hex("bisig_exampleexampleexampleexample", canonical)}`);
  });

  it("the credentials guide's example credential verifies against its DID document, with our verifier and an independent one", async () => {
    const guide = read(path.join(API_DOCS_DIR, "guides/credentials.md"));
    const block = (name: string) => JSON.parse(fencedBlocks(guide).find((b) => b.meta === `name=${name}`)!.code);
    const credential = block("credential.json");
    const didDocument = block("did.json");
    expect(verifyCredentialWithDidDocument(credential, didDocument)).toMatchObject({ verified: true });
    expect((await verifyWithDigitalBazaar(credential, didDocument)).verified).toBe(true);
    expect(guide).toContain(bindingVcHash(credential));
    // A changed subject no longer verifies: the example is a real signature, not decoration.
    const forged = structuredClone(credential);
    forged.credentialSubject.account = "did:antelope:sandbox:mallory1234";
    expect(verifyCredentialWithDidDocument(forged, didDocument)).toMatchObject({ verified: false });
  });

  it("runs no raw HTML: the site renders the guides without it", () => {
    for (const file of files) {
      const html = prose(read(file))
        .split("\n")
        .filter((l) => /^\s*<[a-zA-Z!/]/.test(l));
      expect(html, rel(file)).toEqual([]);
    }
  });
});
