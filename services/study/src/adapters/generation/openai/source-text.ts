import { splitSentences } from "@study/ai";
import type { SourceDocument, SourceNote, SourceReference } from "../../../domain/study-material";

/** A transcript without timing, or a document's page, is cut into passages of about this length, so it can be sampled like segments. */
const UNTIMED_PASSAGE_CHARS = 600;

/** The notes and documents as the model reads them. */
export interface SourceText {
  text: string;
  /** Whether passages were left out to stay within the character budget. */
  excerpted: boolean;
}

interface SourceLine {
  text: string;
  /** Headers are always kept; passages may be left out when the sources are too long. */
  passage: boolean;
}

/** Times as the prompt shows them; SourceIndex snaps the model's answer back onto these. */
export function formatSeconds(seconds: number): string {
  return seconds.toFixed(1);
}

const roundedToShownPrecision = (seconds: number) => Number(formatSeconds(seconds));

/** A transcript's text in passages of about UNTIMED_PASSAGE_CHARS, cut between sentences. */
function untimedPassages(transcript: string): string[] {
  const passages: string[] = [];
  let current = "";
  for (const sentence of splitSentences(transcript)) {
    if (current && current.length + sentence.length + 1 > UNTIMED_PASSAGE_CHARS) {
      passages.push(current);
      current = "";
    }
    current = current ? `${current} ${sentence}` : sentence;
  }
  if (current) passages.push(current);
  return passages;
}

function noteLines(note: SourceNote): SourceLine[] {
  const header = (text: string): SourceLine => ({ text, passage: false });
  const passage = (tag: string, text: string): SourceLine => ({
    text: `[note ${note.noteId}${tag}] ${text.replace(/\s+/g, " ").trim()}`,
    passage: true,
  });
  const lines = [header(`Note ${note.noteId}: ${note.title}`)];
  if (note.summary?.trim()) lines.push(header(`Summary: ${note.summary.replace(/\s+/g, " ").trim()}`));
  if (note.segments.length > 0) {
    for (const segment of note.segments) {
      if (segment.text.trim()) lines.push(passage(`, t=${formatSeconds(segment.startTime)}`, segment.text));
    }
  } else {
    for (const text of untimedPassages(note.transcript)) lines.push(passage("", text));
  }
  // URL and file annotations carry no studyable text.
  for (const userNote of note.userNotes) {
    if (userNote.contentType === "text" && userNote.content.trim())
      lines.push(passage(`, user note, t=${formatSeconds(userNote.timestamp)}`, userNote.content));
  }
  return lines;
}

/** A document under its header: each page in passages tagged with the page, `[document <id>, p=<page>]`. */
function documentLines(document: SourceDocument): SourceLine[] {
  const lines: SourceLine[] = [{ text: `Document ${document.documentId}: ${document.title}`, passage: false }];
  for (const page of [...document.pages].sort((a, b) => a.number - b.number)) {
    for (const text of untimedPassages(page.text)) {
      lines.push({ text: `[document ${document.documentId}, p=${page.number}] ${text.replace(/\s+/g, " ").trim()}`, passage: true });
    }
  }
  return lines;
}

/**
 * Indices of evenly spaced items whose lengths add up to at most `budget`: all of them when they fit.
 * Sampling across the whole material, rather than cutting its end, keeps every part of a long lecture represented.
 */
export function evenlySpacedWithin(lengths: number[], budget: number): number[] {
  const total = lengths.reduce((sum, length) => sum + length, 0);
  if (total <= budget) return lengths.map((_, index) => index);
  let count = Math.floor((lengths.length * budget) / total);
  while (count > 0) {
    const picked = Array.from({ length: count }, (_, rank) => Math.floor((rank * lengths.length) / count));
    const size = picked.reduce((sum, index) => sum + lengths[index], 0);
    if (size <= budget) return picked;
    // Items differ in length: shrink in proportion to the overshoot, by at least one.
    count = Math.min(count - 1, Math.floor((count * budget) / size));
  }
  return [];
}

/**
 * The notes as tagged lines, `[note <id>, t=<seconds>] <segment text>` (`[note <id>, user note, t=<seconds>]`
 * for the user's own notes; untimed passages carry no t=), under a header per note, then the documents as
 * `[document <id>, p=<page>] <text>` under a header per document, within `maxChars`: when they are longer,
 * evenly spaced passages are kept.
 */
export function renderSourceText(notes: SourceNote[], maxChars: number, documents: SourceDocument[] = []): SourceText {
  const lines = [...notes.flatMap(noteLines), ...documents.flatMap(documentLines)];
  const passages = lines.filter((line) => line.passage);
  const headerChars = lines.filter((line) => !line.passage).reduce((sum, line) => sum + line.text.length + 1, 0);
  const kept = new Set(
    evenlySpacedWithin(
      passages.map((line) => line.text.length + 1),
      Math.max(0, maxChars - headerChars),
    ).map((index) => passages[index]),
  );
  return {
    text: lines
      .filter((line) => !line.passage || kept.has(line))
      .map((line) => line.text)
      .join("\n"),
    excerpted: kept.size < passages.length,
  };
}

/** A passage a generated item can point back to: its note (and time on the timeline, if any) or document page, its words. */
interface CitablePassage {
  sourceId: string;
  reference: SourceReference;
  words: Set<string>;
}

/** Where the model says an item came from: a note and time, or a document and page (fields it was not asked for are absent). */
export interface Citation {
  sourceNoteId?: string | null;
  sourceStartTime?: number | null;
  sourceDocumentId?: string | null;
  sourcePage?: number | null;
}

/** Lower-case words of four letters or more: enough to tell passages apart without matching on "the"/"and". */
function contentWords(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]{3,}/gu) ?? []);
}

/**
 * Turns the note id and time the model cites into a SourceReference on the real timeline: the time snaps to
 * the start of the note's segment it falls in (the last start at or before it, as shown in the prompt; in a note
 * of typed user notes only, to the time of the user note it falls in); a cited
 * document page is taken when the document has that page. When the model cites no time (page), or a note
 * (document) that is not one of the sources, the item's own text is matched against the passages (segments,
 * text user notes, pages) and the one sharing the most words is taken; failing that, the cited source (or the
 * first one) without a time (page). So every item links to a source, as the offline generator's do.
 */
export class SourceIndex {
  private readonly segmentStarts = new Map<string, number[]>();
  private readonly documentPages = new Map<string, Set<number>>();
  private readonly passages: CitablePassage[] = [];
  private readonly firstSource: SourceReference | undefined;

  constructor(notes: SourceNote[], documents: SourceDocument[] = []) {
    const [firstNote] = notes;
    const [firstDocument] = documents;
    if (firstNote) this.firstSource = { noteId: firstNote.noteId, startTime: null };
    else if (firstDocument) this.firstSource = { documentId: firstDocument.documentId, page: null };
    for (const note of notes) {
      // The note's timeline: its segments' starts; for a note without segments (typed notes only), the times of
      // its text user notes, so that an item made from one keeps that time (#29).
      const textUserNotes = note.userNotes.filter((userNote) => userNote.contentType === "text");
      const anchors =
        note.segments.length > 0 ? note.segments.map((segment) => segment.startTime) : textUserNotes.map((userNote) => userNote.timestamp);
      this.segmentStarts.set(
        note.noteId,
        anchors.filter((seconds) => Number.isFinite(seconds) && seconds >= 0).sort((a, b) => a - b),
      );
      const passage = (startTime: number | null, text: string): CitablePassage => ({
        sourceId: note.noteId,
        reference: { noteId: note.noteId, startTime },
        words: contentWords(text),
      });
      for (const segment of note.segments) this.passages.push(passage(segment.startTime, segment.text));
      for (const userNote of note.userNotes) {
        if (userNote.contentType !== "text") continue;
        this.passages.push(passage(this.snap(note.noteId, userNote.timestamp), userNote.content));
      }
    }
    for (const document of documents) {
      this.documentPages.set(document.documentId, new Set(document.pages.map((page) => page.number)));
      for (const page of [...document.pages].sort((a, b) => a.number - b.number)) {
        if (!page.text.trim()) continue;
        const reference = { documentId: document.documentId, page: page.number };
        this.passages.push({ sourceId: document.documentId, reference, words: contentWords(page.text) });
      }
    }
  }

  /** `itemText`: the item's own words (a card's front and back, a question with its answer, a section's text). */
  resolve(noteId: string | null, startTime: number | null, itemText = ""): SourceReference | null {
    return this.cite({ sourceNoteId: noteId, sourceStartTime: startTime }, itemText);
  }

  /** The citation as a SourceReference (see the class); `itemText` as for resolve. */
  cite(citation: Citation, itemText = ""): SourceReference | null {
    // The model sometimes copies the tag's "note " (or "document ") prefix along with the id.
    const citedNote = citation.sourceNoteId?.trim().replace(/^note\s+/i, "");
    const noteId = citedNote !== undefined && this.segmentStarts.has(citedNote) ? citedNote : undefined;
    const startTime = citation.sourceStartTime ?? null;
    if (noteId !== undefined && startTime !== null) return { noteId, startTime: this.snap(noteId, startTime) };
    const citedDocument = citation.sourceDocumentId?.trim().replace(/^document\s+/i, "");
    const documentId = noteId === undefined && citedDocument !== undefined && this.documentPages.has(citedDocument) ? citedDocument : undefined;
    const page = citation.sourcePage ?? null;
    if (documentId !== undefined && page !== null && this.documentPages.get(documentId)?.has(page)) return { documentId, page };
    const matched = this.bestMatch(itemText, noteId ?? documentId);
    if (matched) return matched.reference;
    if (noteId !== undefined) return { noteId, startTime: null };
    if (documentId !== undefined) return { documentId, page: null };
    return this.firstSource ?? null;
  }

  /**
   * The start of the note's segment that `seconds` falls in (for a note without segments: the latest text user
   * note's time at or before it); null for a note without timing.
   */
  private snap(noteId: string, seconds: number): number | null {
    const starts = this.segmentStarts.get(noteId) ?? [];
    if (starts.length === 0) return null;
    const shownTime = roundedToShownPrecision(seconds);
    return starts.filter((start) => roundedToShownPrecision(start) <= shownTime).at(-1) ?? starts[0];
  }

  /** The passage (of the source `onlySource`, when given) sharing the most content words with the text; the earliest on a tie. */
  private bestMatch(text: string, onlySource?: string): CitablePassage | undefined {
    const words = contentWords(text);
    let best: CitablePassage | undefined;
    let bestShared = 0;
    for (const passage of this.passages) {
      if (onlySource !== undefined && passage.sourceId !== onlySource) continue;
      let shared = 0;
      for (const word of words) if (passage.words.has(word)) shared++;
      if (shared > bestShared) [best, bestShared] = [passage, shared];
    }
    return best;
  }
}
