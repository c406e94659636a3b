import { splitSentences } from "@study/ai";
import type { SourceNote, SourceSegment } from "../../../domain/study-material";
import { capitalize } from "./prose";

/**
 * One sentence-sized piece of the source: a sentence of a punctuated transcript, a few merged phrases of an
 * unpunctuated one (pocketsphinx prints neither case nor punctuation), or a sentence of a user's text note.
 */
export interface TextUnit {
  /** Order across all notes. */
  id: number;
  noteId: string;
  noteIndex: number;
  /** As said, without hesitation sounds ("um", "uh"). */
  text: string;
  /** `text` as a stand-alone statement: leading discourse markers ("So,", "Okay, now") dropped, capitalised. */
  statement: string;
  /** Start of the transcript segment the unit begins in, a user note's timestamp, or null without timing. */
  startTime: number | null;
  /** 0 for the note's first unit, 1 for its last. */
  position: number;
}

/** A "sentence" longer than this is unpunctuated speech and is cut at segment boundaries... */
const LONGEST_UNIT_WORDS = 40;
/** ...merging short phrases until a unit has at least this many words... */
const SHORTEST_UNIT_WORDS = 10;
/** ...and cutting a phrase longer than this into even windows. */
const WINDOW_WORDS = 25;
/** How far ahead of the previous segment the next one is looked for in the transcript, in words. */
const SEGMENT_SEARCH_WORDS = 200;

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
/** Words a statement drops from its start: hesitations and discourse markers (see asStatement). */
const FILLER_WORDS = new Set(["um", "umm", "uh", "uhm", "erm", "hmm", "so", "and", "okay", "ok", "now", "alright", "anyway", "then", "but", "right", "well"]);
const HESITATION = /(^|[\s,])(?:um+|uh+|uhm|erm|hmm+)(?=[\s,.!?]|$),?/giu;
/** Fillers that open spoken sentences; "right" and "well" only with a comma ("Right atrium", "Well-known"). */
const DISCOURSE_MARKER = /^(?:(?:so|and|okay|ok|now|alright|all right|anyway|then|but)\b,?|(?:right|well),)\s+/i;

interface Word {
  lower: string;
  start: number;
  end: number;
}

function wordsOf(text: string): Word[] {
  return Array.from(text.matchAll(WORD), (match) => ({ lower: match[0].toLowerCase(), start: match.index, end: match.index + match[0].length }));
}

/** The text without "um", "uh" and the commas around them. */
function withoutHesitations(text: string): string {
  return text
    .replace(HESITATION, "$1")
    .replace(/\s+,/g, ",")
    .replace(/,(?:\s*,)+/g, ",")
    .replace(/\s+/g, " ")
    .replace(/^[\s,]+/, "")
    .trim();
}

/** "Okay, so the cell …" → "The cell …". */
function asStatement(text: string): string {
  let statement = text;
  while (DISCOURSE_MARKER.test(statement)) statement = statement.replace(DISCOURSE_MARKER, "");
  return capitalize(statement);
}

function indexOfSequence(words: Word[], sequence: string[], from: number, to: number): number {
  const last = Math.min(to, words.length - sequence.length);
  outer: for (let start = from; start <= last; start += 1) {
    for (let offset = 0; offset < sequence.length; offset += 1) {
      if (words[start + offset].lower !== sequence[offset]) continue outer;
    }
    return start;
  }
  return -1;
}

/**
 * The segment each transcript word was spoken in (its index in `segments`), by finding each segment's words
 * in order in the transcript (whole, else its first three words: a transcript edited after transcription
 * still mostly lines up). Words no segment claimed belong to the segment before them, leading ones to the
 * first; -1 everywhere when nothing matched.
 */
function segmentOfEachWord(words: Word[], segments: SourceSegment[]): number[] {
  const owner = new Array<number>(words.length).fill(-1);
  let cursor = 0;
  segments.forEach((segment, segmentIndex) => {
    const sequence = wordsOf(segment.text).map((word) => word.lower);
    if (sequence.length === 0) return;
    const horizon = cursor + SEGMENT_SEARCH_WORDS;
    let at = indexOfSequence(words, sequence, cursor, horizon);
    let length = sequence.length;
    if (at < 0 && sequence.length > 3) {
      at = indexOfSequence(words, sequence.slice(0, 3), cursor, horizon);
      length = Math.min(sequence.length, words.length - at);
    }
    if (at < 0) return;
    owner.fill(segmentIndex, at, at + length);
    cursor = at + length;
  });
  const first = owner.find((segmentIndex) => segmentIndex >= 0) ?? -1;
  let previous = first;
  return owner.map((segmentIndex) => (segmentIndex >= 0 ? (previous = segmentIndex) : previous));
}

function evenWindows(from: number, to: number): [number, number][] {
  const count = Math.ceil((to - from) / WINDOW_WORDS);
  const size = Math.ceil((to - from) / count);
  return Array.from({ length: count }, (_, index) => [from + index * size, Math.min(to, from + (index + 1) * size)]);
}

/** An unpunctuated run of words as units: its segments' phrases, merged while short, cut while long. */
function unitRanges(from: number, to: number, segmentOf: number[]): [number, number][] {
  const phrases: [number, number][] = [];
  let start = from;
  for (let index = from + 1; index <= to; index += 1) {
    if (index === to || segmentOf[index] !== segmentOf[index - 1]) {
      phrases.push(...evenWindows(start, index));
      start = index;
    }
  }
  const ranges: [number, number][] = [];
  for (const [phraseStart, phraseEnd] of phrases) {
    const current = ranges.at(-1);
    if (current && current[1] - current[0] < SHORTEST_UNIT_WORDS && phraseEnd - current[0] <= LONGEST_UNIT_WORDS) current[1] = phraseEnd;
    else ranges.push([phraseStart, phraseEnd]);
  }
  return ranges;
}

interface DraftUnit {
  text: string;
  startTime: number | null;
}

function transcriptUnits(note: SourceNote): DraftUnit[] {
  const transcript = note.transcript.trim() || note.segments.map((segment) => segment.text).join(" ");
  const collapsed = transcript.replace(/\s+/g, " ").trim();
  const words = wordsOf(collapsed);
  const segmentOf = segmentOfEachWord(words, note.segments);
  /** Where the unit's words from `from` to `to` start being said, past leading fillers ("so", "um"). */
  const startTimeAt = (from: number, to: number) => {
    let first = from;
    while (first < to - 1 && FILLER_WORDS.has(words[first].lower)) first += 1;
    const segmentIndex = segmentOf[first] ?? -1;
    return segmentIndex >= 0 ? note.segments[segmentIndex].startTime : null;
  };

  const units: DraftUnit[] = [];
  let wordIndex = 0;
  for (const sentence of splitSentences(transcript)) {
    const count = wordsOf(sentence).length;
    if (count <= LONGEST_UNIT_WORDS) {
      units.push({ text: sentence, startTime: startTimeAt(wordIndex, wordIndex + count) });
    } else {
      for (const [from, to] of unitRanges(wordIndex, Math.min(wordIndex + count, words.length), segmentOf)) {
        units.push({ text: collapsed.slice(words[from].start, words[to - 1].end), startTime: startTimeAt(from, to) });
      }
    }
    wordIndex += count;
  }
  return units;
}

/** A user's text notes, sentence by sentence, each at the note's timestamp. */
function userNoteUnits(note: SourceNote): DraftUnit[] {
  return note.userNotes
    .filter((userNote) => userNote.contentType === "text")
    .sort((a, b) => a.timestamp - b.timestamp)
    .flatMap((userNote) =>
      splitSentences(userNote.content).flatMap((sentence) => {
        const words = wordsOf(sentence);
        if (words.length <= LONGEST_UNIT_WORDS) return [{ text: sentence, startTime: userNote.timestamp }];
        return evenWindows(0, words.length).map(([from, to]) => ({
          text: sentence.slice(words[from].start, words[to - 1].end),
          startTime: userNote.timestamp,
        }));
      }),
    );
}

/** User-note sentences go where their timestamp falls in the transcript, so topics stay together. */
function interleaveByTime(transcript: DraftUnit[], userNotes: DraftUnit[]): DraftUnit[] {
  const merged: DraftUnit[] = [];
  let next = 0;
  for (const unit of transcript) {
    while (next < userNotes.length && unit.startTime !== null && (userNotes[next].startTime ?? 0) < unit.startTime) {
      merged.push(userNotes[next]);
      next += 1;
    }
    merged.push(unit);
  }
  return merged.concat(userNotes.slice(next));
}

/** The notes as units, in note order then spoken order. Units without a word are dropped. */
export function buildTextUnits(notes: readonly SourceNote[]): TextUnit[] {
  const units: TextUnit[] = [];
  notes.forEach((note, noteIndex) => {
    const drafts = interleaveByTime(transcriptUnits(note), userNoteUnits(note))
      .map((draft) => ({ ...draft, text: withoutHesitations(draft.text) }))
      .filter((draft) => wordsOf(draft.text).length > 0);
    drafts.forEach((draft, index) => {
      units.push({
        id: units.length,
        noteId: note.noteId,
        noteIndex,
        text: draft.text,
        statement: asStatement(draft.text),
        startTime: draft.startTime,
        position: drafts.length > 1 ? index / (drafts.length - 1) : 0,
      });
    });
  });
  return units;
}
