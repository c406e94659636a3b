import { splitSentences } from "@study/ai";
import type { SourceNote, SourceReference } from "../../../domain/study-material";

/** A transcript without timing is cut into passages of about this length, so it can be sampled like segments. */
const UNTIMED_PASSAGE_CHARS = 600;

/** The notes as the model reads them. */
export interface SourceText {
  text: string;
  /** Whether passages were left out to stay within the character budget. */
  excerpted: boolean;
}

interface SourceLine {
  text: string;
  /** Headers are always kept; passages may be left out when the notes are too long. */
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
  const passage = (tag: string, text: string): SourceLine => ({ text: `[note ${note.noteId}${tag}] ${text.replace(/\s+/g, " ").trim()}`, passage: true });
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
    if (userNote.contentType === "text" && userNote.content.trim()) lines.push(passage(", user note", userNote.content));
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
 * The notes as tagged lines, `[note <id>, t=<seconds>] <segment text>` (untimed passages and user notes carry
 * no t=), under a header per note, within `maxChars`: when they are longer, evenly spaced passages are kept.
 */
export function renderSourceText(notes: SourceNote[], maxChars: number): SourceText {
  const lines = notes.flatMap(noteLines);
  const passages = lines.filter((line) => line.passage);
  const headerChars = lines.filter((line) => !line.passage).reduce((sum, line) => sum + line.text.length + 1, 0);
  const kept = new Set(evenlySpacedWithin(passages.map((line) => line.text.length + 1), Math.max(0, maxChars - headerChars)).map((index) => passages[index]));
  return {
    text: lines.filter((line) => !line.passage || kept.has(line)).map((line) => line.text).join("\n"),
    excerpted: kept.size < passages.length,
  };
}

/**
 * Turns the note id and time the model cites into a SourceReference on the real timeline: the time snaps to
 * the start of the note's segment it falls in (the last start at or before it, as shown in the prompt), an
 * unknown note gives no reference at all.
 */
export class SourceIndex {
  private readonly segmentStarts = new Map<string, number[]>();

  constructor(notes: SourceNote[]) {
    for (const note of notes) this.segmentStarts.set(note.noteId, note.segments.map((segment) => segment.startTime).sort((a, b) => a - b));
  }

  resolve(noteId: string | null, startTime: number | null): SourceReference | null {
    // The model sometimes copies the tag's "note " prefix along with the id.
    const id = noteId?.trim().replace(/^note\s+/i, "");
    const starts = id === undefined ? undefined : this.segmentStarts.get(id);
    if (id === undefined || starts === undefined) return null;
    if (startTime === null || starts.length === 0) return { noteId: id, startTime: null };
    const shownTime = roundedToShownPrecision(startTime);
    const containing = starts.filter((start) => roundedToShownPrecision(start) <= shownTime).at(-1);
    return { noteId: id, startTime: containing ?? starts[0] };
  }
}
