import { chunkPages, DEFAULT_CHUNK_CHARS, type DocumentChunkDraft, type PageText } from "../../src/domain/chunking";

/** Pages laid end to end with a blank line between them, as an extraction's whole text would hold them. */
function document(...texts: string[]): { pages: PageText[]; whole: string } {
  const pages: PageText[] = [];
  let whole = "";
  texts.forEach((text, index) => {
    if (index > 0) whole += "\n\n";
    pages.push({ number: index + 1, text, startOffset: whole.length });
    whole += text;
  });
  return { pages, whole };
}

function sentence(index: number): string {
  return `Sentence number ${index} talks about cells and membranes in some detail.`;
}

/** Each chunk's text is the whole text at its offsets, within its page. */
function expectFaithful(chunks: DocumentChunkDraft[], whole: string, pages: PageText[]) {
  chunks.forEach((chunk, index) => {
    expect(chunk.position).toBe(index);
    expect(whole.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
    const page = pages.find((candidate) => candidate.number === chunk.page);
    expect(page).toBeDefined();
    if (!page) return;
    expect(chunk.startOffset).toBeGreaterThanOrEqual(page.startOffset);
    expect(chunk.endOffset).toBeLessThanOrEqual(page.startOffset + page.text.length);
    expect(chunk.text).toBe(chunk.text.trim());
    expect(chunk.text.length).toBeGreaterThan(0);
  });
}

describe("chunkPages", () => {
  it("keeps a short page whole, without its surrounding white space, and skips empty pages", () => {
    const { pages, whole } = document("  Mitosis has four phases.\n", "", " \n\t ", "Meiosis halves the chromosomes.");
    const chunks = chunkPages(pages);
    expect(chunks).toEqual([
      { page: 1, position: 0, text: "Mitosis has four phases.", startOffset: 2, endOffset: 26 },
      { page: 4, position: 1, text: "Meiosis halves the chromosomes.", startOffset: pages[3].startOffset, endOffset: whole.length },
    ]);
    expectFaithful(chunks, whole, pages);
    expect(chunkPages([])).toEqual([]);
  });

  it("never lets a chunk cross a page, and numbers positions across the document", () => {
    const { pages, whole } = document("First page text.", "Second page text.", "Third page text.");
    const chunks = chunkPages(pages);
    expect(chunks.map((chunk) => [chunk.page, chunk.position, chunk.text])).toEqual([
      [1, 0, "First page text."],
      [2, 1, "Second page text."],
      [3, 2, "Third page text."],
    ]);
    expectFaithful(chunks, whole, pages);
  });

  it("cuts at paragraph breaks first", () => {
    const paragraph = (word: string) => `${word} `.repeat(40).trim() + ".";
    const text = [paragraph("alpha"), paragraph("beta"), paragraph("gamma")].join("\n\n");
    const { pages, whole } = document(text);
    const chunks = chunkPages(pages, { maxChars: 500 });
    expect(chunks.map((chunk) => chunk.text)).toEqual([`${paragraph("alpha")}\n\n${paragraph("beta")}`, paragraph("gamma")]);
    expectFaithful(chunks, whole, pages);
  });

  it("cuts at a sentence end when no paragraph break fits, and between words when no sentence end does", () => {
    const text = Array.from({ length: 40 }, (_, i) => sentence(i)).join(" ");
    const { pages, whole } = document(text);
    const chunks = chunkPages(pages, { maxChars: 300 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(300);
      expect(chunk.text).toMatch(/^Sentence number \d+ .*detail\.$/);
    }
    expectFaithful(chunks, whole, pages);

    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const wordChunks = chunkPages(document(words).pages, { maxChars: 100 });
    for (const chunk of wordChunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(100);
      expect(chunk.text).toMatch(/^word\d+( word\d+)*$/);
    }
    expect(wordChunks.map((chunk) => chunk.text).join(" ")).toBe(words);
  });

  it("does not leave a tiny chunk before an early paragraph break when a later boundary fits", () => {
    const text = `Title\n\n${Array.from({ length: 10 }, (_, i) => sentence(i)).join(" ")}`;
    const chunks = chunkPages(document(text).pages, { maxChars: 400 });
    expect(chunks[0].text.startsWith("Title\n\nSentence number 0")).toBe(true);
    expect(chunks[0].text.length).toBeGreaterThan(200);
  });

  it("hard-cuts a word longer than the limit, never inside a surrogate pair", () => {
    const long = "x".repeat(25);
    expect(chunkPages(document(long).pages, { maxChars: 10 }).map((chunk) => chunk.text)).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
    const emoji = "a" + "😀".repeat(6);
    const chunks = chunkPages(document(emoji).pages, { maxChars: 4 });
    expect(chunks.map((chunk) => chunk.text)).toEqual(["a😀", "😀😀", "😀😀", "😀"]);
    expect(chunks.map((chunk) => chunk.text).join("")).toBe(emoji);
  });

  it("defaults to chunks of about 1 000 characters", () => {
    const text = Array.from({ length: 200 }, (_, i) => sentence(i)).join(" ");
    const chunks = chunkPages(document(text).pages);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(DEFAULT_CHUNK_CHARS);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.text.length).toBeGreaterThan(DEFAULT_CHUNK_CHARS / 2);
    expect(chunks.map((chunk) => chunk.text).join(" ")).toBe(text);
  });

  it("repeats the end of the previous chunk when asked for an overlap, starting at a word", () => {
    const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join(" ");
    const { pages, whole } = document(text);
    const chunks = chunkPages(pages, { maxChars: 300, overlapChars: 60 });
    expectFaithful(chunks, whole, pages);
    for (let i = 1; i < chunks.length; i += 1) {
      expect(chunks[i].startOffset).toBeLessThan(chunks[i - 1].endOffset);
      expect(chunks[i].startOffset).toBeGreaterThan(chunks[i - 1].startOffset);
      expect(whole[chunks[i].startOffset - 1]).toMatch(/\s/);
    }
    expect(chunks[chunks.length - 1].endOffset).toBe(whole.length);
  });

  it("stops at the chunk cap", () => {
    const pages = Array.from({ length: 20 }, (_, i): PageText => ({ number: i + 1, text: `Page ${i + 1} text.`, startOffset: i * 20 }));
    const chunks = chunkPages(pages, { maxChunks: 7 });
    expect(chunks).toHaveLength(7);
    expect(chunks.at(-1)?.page).toBe(7);
  });
});
