/**
 * The documentation is walked by following links: every relative link of every Markdown file must reach a file (and,
 * with `#anchor`, a heading of it), and every document a code comment names by path (`docs/<page>.md`, `k8s/README.md`,
 * `services/<name>/README.md` …) must exist. Moving a section to another page fails here until its readers follow.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..", "..", "..");
/** Folders that hold no documentation of ours: dependencies, build output, local data, generated code. */
const SKIPPED = new Set(["node_modules", "dist", ".git", ".data", ".stack", "coverage", "generated", "gen", "results"]);
const SOURCE = /\.(ts|tsx|js|mjs|cjs|sh|prisma|proto|ya?ml)$/;

function filesUnder(folder: string, wanted: (name: string) => boolean): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(path, wanted);
    return wanted(entry.name) ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

/** `[text](target)` and `![alt](target)` outside code, with the line they are on. */
function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fenced = false;
  markdown.split("\n").forEach((text, index) => {
    if (text.startsWith("```")) fenced = !fenced;
    if (fenced) return;
    const outsideCode = text.replace(/`[^`]*`/g, "");
    for (const match of outsideCode.matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: match[1], line: index + 1 });
  });
  return links;
}

const markdownFiles = filesUnder(ROOT, (name) => name.endsWith(".md"));

describe("documentation links", () => {
  it("finds the project's documents", () => {
    expect(markdownFiles.map((file) => relative(ROOT, file))).toEqual(
      expect.arrayContaining(["README.md", "docs/architecture.md", "docs/testing.md", "k8s/README.md"]),
    );
  });

  it("every relative link of a Markdown file reaches a file, and its anchor a heading there", () => {
    const broken: string[] = [];
    for (const file of markdownFiles) {
      for (const { target, line } of linksOf(readFileSync(file, "utf8"))) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split("#");
        const reached = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        const where = `${relative(ROOT, file)}:${line} → ${target}`;
        if (!existsSync(reached)) broken.push(`${where}: no such file`);
        else if (anchor && reached.endsWith(".md") && !anchorsOf(readFileSync(reached, "utf8")).has(anchor)) broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("every document a code comment names by its path exists", () => {
    const missing: string[] = [];
    const sources = ["libs", "services", "gateway", "clients", "bench", "scripts", "proto", "k8s", ".ci"]
      .map((folder) => join(ROOT, folder))
      .filter((folder) => existsSync(folder) && statSync(folder).isDirectory())
      .flatMap((folder) => filesUnder(folder, (name) => SOURCE.test(name)));
    for (const file of [...sources, join(ROOT, "jest.config.js"), join(ROOT, "eslint.config.mjs")]) {
      for (const [named] of readFileSync(file, "utf8").matchAll(
        /(?<![\w/.-])(?:(?:docs|k8s|services|bench|clients|libs|gateway|proto)\/[\w./-]+\.md|README\.md)\b/g,
      )) {
        // A bare README.md is the repository's, or the folder's own when the file sits next to one.
        const candidates = named === "README.md" ? [join(ROOT, named), join(dirname(file), named)] : [join(ROOT, named)];
        if (!candidates.some((candidate) => existsSync(candidate))) missing.push(`${relative(ROOT, file)} names ${named}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
