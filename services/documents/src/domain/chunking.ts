/**
 * Cutting a document's extracted text into the passages searched (document_chunk rows). A chunk never crosses a
 * page, so a hit can name its page; its text is exactly `wholeText.slice(startOffset, endOffset)`.
 */

/** One page of the extracted text and where it starts in the document's whole text. */
export interface PageText {
  /** 1-based page (slide, sheet) number. */
  number: number;
  text: string;
  /** Offset of the page's first character in the document's whole extracted text. */
  startOffset: number;
}

export interface DocumentChunkDraft {
  page: number;
  /** Order within the document, from 0. */
  position: number;
  text: string;
  /** Offsets in the document's whole extracted text, end exclusive. */
  startOffset: number;
  endOffset: number;
}

export interface ChunkingOptions {
  /** Largest chunk, in characters (default 1 000). */
  maxChars?: number;
  /** Characters of the previous chunk repeated at the start of the next one on the same page (default 0). */
  overlapChars?: number;
  /** Chunks kept per document (default 5 000): the text beyond is not searchable. */
  maxChunks?: number;
}

export const DEFAULT_CHUNK_CHARS = 1_000;
export const DEFAULT_MAX_CHUNKS = 5_000;
/** Shortest chunk a boundary may leave before the limit, as a share of maxChars (else the next boundary kind is tried). */
const MIN_FILL = 0.5;

const PARAGRAPH_BREAK = /\n[ \t\r\f\v]*\n\s*/g;
/** A sentence end: terminal punctuation, closing quotes or brackets, then white space. */
const SENTENCE_END = /[.!?…]["'’”)\]]*\s+/g;
const WHITE_SPACE = /\s+/g;

/** End of the last match of `pattern` in text[from, to) that ends at or after `atLeast`: where the next piece starts. */
function lastBoundary(text: string, pattern: RegExp, from: number, to: number, atLeast: number): number | undefined {
  const window = text.slice(from, to);
  let found: number | undefined;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(window); match; match = pattern.exec(window)) {
    const end = from + match.index + match[0].length;
    if (from + match.index >= atLeast) found = end;
  }
  return found;
}

/** Where the chunk starting at `start` ends (exclusive, before trailing white space) and the next one may start. */
function cutAt(text: string, start: number, maxChars: number): { end: number; next: number } {
  const limit = start + maxChars;
  if (limit >= text.length) return { end: text.trimEnd().length, next: text.length };
  const atLeast = start + Math.floor(maxChars * MIN_FILL);
  // The boundary's white space may run past the limit; the chunk itself ends before it.
  const next =
    lastBoundary(text, PARAGRAPH_BREAK, start, limit + 1, atLeast) ??
    lastBoundary(text, SENTENCE_END, start, limit + 1, atLeast) ??
    lastBoundary(text, WHITE_SPACE, start, limit + 1, start + 1);
  if (next !== undefined) {
    let end = next;
    while (end > start && /\s/.test(text[end - 1])) end -= 1;
    if (end - start <= maxChars) return { end, next };
  }
  // One word longer than the limit: a hard cut, never inside a surrogate pair.
  let end = limit;
  if (/[\uDC00-\uDFFF]/.test(text[end])) end -= 1;
  return { end, next: end };
}

/** The start of the first word at or after `offset - overlap` (but after `floor`), for an overlapping next chunk. */
function overlapStart(text: string, offset: number, overlap: number, floor: number): number {
  if (overlap <= 0) return offset;
  let start = Math.max(floor + 1, offset - overlap);
  while (start < offset && !/\s/.test(text[start - 1])) start += 1;
  return start;
}

/**
 * Chunks of at most `maxChars` characters within each page, cut at a paragraph break, else at a sentence end,
 * else between words (a hard cut only inside a word longer than the limit), never leaving a chunk shorter than
 * half the limit when a later boundary fits. Leading and trailing white space is left out of every chunk;
 * empty pages give none. At most `maxChunks` chunks per document.
 */
export function chunkPages(pages: readonly PageText[], options: ChunkingOptions = {}): DocumentChunkDraft[] {
  const maxChars = Math.max(1, Math.floor(options.maxChars ?? DEFAULT_CHUNK_CHARS));
  const overlap = Math.min(Math.max(0, Math.floor(options.overlapChars ?? 0)), Math.floor(maxChars / 2));
  const maxChunks = Math.max(0, Math.floor(options.maxChunks ?? DEFAULT_MAX_CHUNKS));
  const chunks: DocumentChunkDraft[] = [];
  for (const page of pages) {
    const text = page.text;
    let start = 0;
    while (chunks.length < maxChunks) {
      while (start < text.length && /\s/.test(text[start])) start += 1;
      if (start >= text.length) break;
      const { end, next } = cutAt(text, start, maxChars);
      chunks.push({
        page: page.number,
        position: chunks.length,
        text: text.slice(start, end),
        startOffset: page.startOffset + start,
        endOffset: page.startOffset + end,
      });
      start = next >= text.length ? next : overlapStart(text, next, overlap, start);
    }
  }
  return chunks;
}
