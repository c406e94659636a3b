import type { PassageKind, SourceType } from "./passage";

/** A passage before it is stored (ids and the owner's keys are added by the caller). */
export interface PassageDraft {
  sourceType: SourceType;
  sourceId: string;
  title: string;
  kind: PassageKind;
  position: number;
  startTime: number | null;
  page: number | null;
  text: string;
}

export interface NoteMaterial {
  noteId: string;
  title: string;
  segments: readonly { start: number; text: string }[];
  summary: string | null;
  /** The user's typed notes, each at the second of the recording it was written against. */
  userNotes: readonly { content: string; timestamp: number }[];
  /** The whole transcript: passages come from it only when the note has no segments (e.g. a note without timings). */
  content?: string | null;
}

export interface DocumentMaterial {
  documentId: string;
  title: string;
  pages: readonly { number: number; text: string }[];
}

/** Segments shorter than this join the next one (a passage of three words answers nothing on its own). */
const MIN_SEGMENT_WORDS = 12;
/** A page is cut into passages of about this many words, at sentence ends where possible. */
const PAGE_PASSAGE_WORDS = 120;

const wordCount = (text: string) => text.split(/\s+/u).filter((word) => word.length > 0).length;

/**
 * A note's passages: its transcript in segments (short ones joined to the next, the passage keeping the first's
 * start time, so that a citation opens the recording where the words begin), its summary and each user note (at
 * its own timestamp, so that its citation opens the recording where the user wrote it).
 */
export function notePassages(note: NoteMaterial): PassageDraft[] {
  const drafts: PassageDraft[] = [];
  const base = { sourceType: "note" as const, sourceId: note.noteId, title: note.title, page: null };
  let pending: { start: number; text: string } | null = null;
  for (const segment of note.segments) {
    const text = segment.text.trim();
    if (!text) continue;
    pending = pending ? { start: pending.start, text: `${pending.text} ${text}` } : { start: segment.start, text };
    if (wordCount(pending.text) >= MIN_SEGMENT_WORDS) {
      drafts.push({ ...base, kind: "segment", position: drafts.length, startTime: pending.start, text: pending.text });
      pending = null;
    }
  }
  if (pending) drafts.push({ ...base, kind: "segment", position: drafts.length, startTime: pending.start, text: pending.text });
  // Without segments the transcript is cut like a page, with no time to open the recording at.
  if (drafts.length === 0 && note.content?.trim()) {
    for (const text of cutAtSentences(note.content)) drafts.push({ ...base, kind: "segment", position: drafts.length, startTime: null, text });
  }
  if (note.summary?.trim()) drafts.push({ ...base, kind: "summary", position: drafts.length, startTime: null, text: note.summary.trim() });
  for (const userNote of note.userNotes) {
    if (!userNote.content.trim()) continue;
    const startTime = Number.isFinite(userNote.timestamp) && userNote.timestamp >= 0 ? userNote.timestamp : null;
    drafts.push({ ...base, kind: "user_note", position: drafts.length, startTime, text: userNote.content.trim() });
  }
  return drafts;
}

/** A document's passages: each page cut into pieces of about PAGE_PASSAGE_WORDS words at sentence ends. */
export function documentPassages(document: DocumentMaterial): PassageDraft[] {
  const drafts: PassageDraft[] = [];
  for (const page of document.pages) {
    for (const text of cutAtSentences(page.text)) {
      drafts.push({
        sourceType: "document",
        sourceId: document.documentId,
        title: document.title,
        kind: "page",
        position: drafts.length,
        startTime: null,
        page: page.number,
        text,
      });
    }
  }
  return drafts;
}

/** Text cut into pieces of about PAGE_PASSAGE_WORDS words at sentence ends (whitespace collapsed). */
function cutAtSentences(text: string): string[] {
  const sentences = text
    .replace(/\s+/gu, " ")
    .trim()
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"“(])/u);
  const pieces: string[] = [];
  let piece = "";
  for (const sentence of sentences) {
    if (piece && wordCount(piece) + wordCount(sentence) > PAGE_PASSAGE_WORDS) {
      pieces.push(piece);
      piece = "";
    }
    piece = piece ? `${piece} ${sentence}` : sentence;
  }
  if (piece) pieces.push(piece);
  return pieces;
}
