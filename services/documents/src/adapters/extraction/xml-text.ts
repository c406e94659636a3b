import type JSZip from "jszip";

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Decodes XML's five named entities and numeric character references (all an OOXML part contains). */
export function decodeXmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    return NAMED_ENTITIES[name] ?? whole;
  });
}

/** The value of an attribute in one start tag (`<p:sldId id="256" r:id="rId2"/>`), decoded. */
export function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name.replace(":", "\\:")}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  const value = match?.[2] ?? match?.[3];
  return value === undefined ? undefined : decodeXmlEntities(value);
}

/** A part's text, or undefined when the archive has no such part. */
export async function readPart(zip: JSZip, path: string): Promise<string | undefined> {
  const file = zip.file(path);
  return file ? file.async("string") : undefined;
}

/** `dc:creator` of docProps/core.xml (the author of a docx, pptx or xlsx), or null. */
export async function coreAuthor(zip: JSZip): Promise<string | null> {
  const core = await readPart(zip, "docProps/core.xml");
  const creator = core && /<dc:creator(?:\s[^>]*)?>([\s\S]*?)<\/dc:creator>/.exec(core)?.[1];
  const author = creator ? decodeXmlEntities(creator).trim() : "";
  return author || null;
}

/** The relationships of a part (`word/_rels/document.xml.rels` style): id → { type, target resolved against the part's folder }. */
export async function readRelationships(zip: JSZip, partPath: string): Promise<Map<string, { type: string; target: string }>> {
  const slash = partPath.lastIndexOf("/");
  const folder = partPath.slice(0, slash + 1);
  const xml = await readPart(zip, `${folder}_rels/${partPath.slice(slash + 1)}.rels`);
  const relationships = new Map<string, { type: string; target: string }>();
  for (const tag of xml?.match(/<Relationship\s[^>]*>/g) ?? []) {
    const id = attribute(tag, "Id");
    const target = attribute(tag, "Target");
    if (id && target && attribute(tag, "TargetMode") !== "External") {
      relationships.set(id, { type: attribute(tag, "Type") ?? "", target: resolvePartPath(folder, target) });
    }
  }
  return relationships;
}

/** Resolves a relationship target (`../notesSlides/notesSlide1.xml`, `/ppt/slides/slide1.xml`) to a part path. */
function resolvePartPath(folder: string, target: string): string {
  const segments = target.startsWith("/") ? [] : folder.split("/").filter(Boolean);
  for (const segment of target.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment && segment !== ".") segments.push(segment);
  }
  return segments.join("/");
}

/**
 * The text of DrawingML paragraphs (`<a:p>`) in a fragment: the runs (`<a:t>`) of a paragraph joined, a line
 * break (`<a:br/>`) as a new line, one line per paragraph; empty paragraphs dropped.
 */
export function drawingParagraphs(xml: string): string[] {
  const lines: string[] = [];
  for (const paragraph of xml.match(/<a:p[\s>][\s\S]*?<\/a:p>/g) ?? []) {
    let line = "";
    for (const piece of paragraph.matchAll(/<a:t(?:\s[^>]*)?>([\s\S]*?)<\/a:t>|<a:t\s*\/>|<a:br[\s/>]/g)) {
      line += piece[0].startsWith("<a:br") ? "\n" : decodeXmlEntities(piece[1] ?? "");
    }
    if (line.trim()) lines.push(line.trim());
  }
  return lines;
}
