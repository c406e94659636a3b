import { ENGLISH_STOP_WORDS, normalizeTerm, splitSentences } from "@study/ai";
import type { SourceDocument, SourceNote, SourceSegment } from "../../../domain/study-material";
import { capitalize } from "./prose";
import { ARTICLES, hasVerb, isPrepositionWord, tagBatch, type Token } from "./tagging";

/**
 * One sentence-sized piece of the source: a sentence of a punctuated transcript, a few merged phrases of an
 * unpunctuated one (pocketsphinx prints neither case nor punctuation), the pause-delimited pieces of one
 * clause rejoined (the media service's pocketsphinx transcripts: a full stop at every pause), a sentence
 * of a user's text note, or a sentence of a document's page.
 */
export interface TextUnit {
  /** Order across all sources. */
  id: number;
  /** The note or document the unit is from. */
  sourceId: string;
  /** That source's place among the request's sources: the notes in order, then the documents. */
  sourceIndex: number;
  /** As said, without hesitation sounds ("um", "uh"). */
  text: string;
  /** `text` as a stand-alone statement: leading discourse markers ("So,", "Okay, now") dropped, capitalised. */
  statement: string;
  /** Start of the transcript segment the unit begins in (for a user note: the one playing at its timestamp), or null without timing. */
  startTime: number | null;
  /** The document page the unit is on; null exactly for a note's unit. */
  page: number | null;
  /** 0 for the source's first unit, 1 for its last. */
  position: number;
  /** Said (in part) in a segment the recogniser scored below LOW_CONFIDENCE: likely misrecognised. */
  unsure: boolean;
}

/**
 * Below this confidence a segment is taken for misrecognised speech (pocketsphinx's posteriors and Whisper's
 * token probabilities both fall to 0.2-0.4 on garbled stretches, and stay above 0.6 on hard names said right).
 */
export const LOW_CONFIDENCE = 0.5;

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
const FILLER_WORDS = new Set([
  "um",
  "umm",
  "uh",
  "uhm",
  "erm",
  "hmm",
  "so",
  "and",
  "okay",
  "ok",
  "now",
  "alright",
  "anyway",
  "then",
  "but",
  "right",
  "well",
]);
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
  unsure?: boolean;
  /** A document's page; absent for a note's. */
  page?: number;
}

/** A piece of the transcript: its text and its words' range [from, to) among the transcript's words. */
interface Piece {
  text: string;
  from: number;
  to: number;
}

/**
 * The media service's pocketsphinx adapter writes a full stop (and a capital) at every pause over 0.6 s and
 * no other punctuation: such a transcript's "sentences" are the stretches between pauses, and a speaker
 * pauses mid-clause too ("… and the Krebs cycle. Takes place. In the mitochondrial matrix."). A transcript
 * with full stops but no comma, colon, semicolon, question or exclamation mark is read that way; one of a
 * transcriber that punctuates (Whisper) has commas.
 */
function punctuatedByPauses(transcript: string, segments: readonly SourceSegment[]): boolean {
  return segments.length > 0 && transcript.includes(".") && !/[,;:!?]/.test(transcript);
}

/** A pause-delimited piece shorter than this is a fragment when it opens like a continuation. */
const SHORTEST_PAUSE_SENTENCE_WORDS = 8;
/** Pieces up to this long are tagged whole, to see whether they have a verb; longer ones are taken as clauses (see tagPieces). */
const LONGEST_TAGGED_PIECE_WORDS = 10;
const TAGGED_HEAD_WORDS = 3;
/** Words a sentence does not end on: a piece ending so was cut by a pause and goes on in the next one. */
const OPEN_ENDINGS = new Set(
  `the a an my your his her its our their and or but nor because if when whenever while although though since unless whereas
than which whose that of very is are`.split(/\s+/),
);
const CONJUNCTIONS = new Set(["and", "but", "or"]);
/** First words of a piece that has no subject of its own, whatever its length: "Is a series of …", "Which includes …". */
const CLAUSE_TAIL_OPENERS = new Set(["is", "are", "was", "were", "which", "whose"]);
/** Tags of a first word that can be the object of a preposition ending the piece before. */
const OBJECT_TAGS = ["Determiner", "Noun", "Adjective", "Value"];
/** Words that open a dependent clause; a piece so opened and shorter than the limit lacks its main clause. */
const SUBORDINATORS = new Set(["if", "when", "whenever", "because", "although", "though", "once", "unless", "while", "since", "whereas"]);
const SHORTEST_SUBORDINATE_CLAUSE_WORDS = 12;
/** compromise tags of a first word that continues the clause before: "In the matrix.", "And releases energy.", "Takes place." */
const CONTINUING_TAGS = ["Preposition", "Conjunction", "Verb"];

/** What the tagger says of a piece: its first words' tags, whether it ends with a preposition, whether it has a verb. */
interface PieceTags {
  head: Token[];
  lastIsPreposition: boolean;
  verb: boolean;
}

const isShort = (piece: Piece) => piece.to - piece.from <= LONGEST_TAGGED_PIECE_WORDS;

/**
 * Tags the pieces with compromise, as little as the rules need (tagging is the costly step): short pieces
 * whole; of a long one, taken as a clause with a verb, only the first words, and only after a piece that may
 * lean on them (a verbless one, or one ending with a preposition). Prepositions are looked up in the lexicon.
 */
function tagPieces(pieces: readonly Piece[]): PieceTags[] {
  const short = pieces.filter(isShort);
  const shortTokens = tagBatch(short.map((piece) => piece.text));
  let shortIndex = 0;
  const tags = pieces.map((piece): PieceTags => {
    if (isShort(piece)) {
      const tokens = shortTokens[shortIndex++];
      return { head: tokens, lastIsPreposition: tokens.at(-1)?.tags.has("Preposition") ?? false, verb: hasVerb(tokens) };
    }
    return { head: [], lastIsPreposition: isPrepositionWord(wordsOf(piece.text).at(-1)?.lower ?? ""), verb: true };
  });
  const needed = pieces
    .map((piece, index) => index)
    .filter((index) => index > 0 && !isShort(pieces[index]) && (tags[index - 1].lastIsPreposition || !tags[index - 1].verb));
  const heads = tagBatch(needed.map((index) => pieces[index].text.slice(0, wordsOf(pieces[index].text)[TAGGED_HEAD_WORDS - 1].end)));
  needed.forEach((index, at) => (tags[index].head = heads[at]));
  return tags;
}

/** The piece's first word that is no filler ("so", "okay"), lower case. */
const firstSaidWord = (piece: Piece) => wordsOf(piece.text).find((word) => !FILLER_WORDS.has(word.lower))?.lower ?? "";

/** The first word that is no filler ("so", "okay") nor "also", with its tags. */
const firstWord = (tags: PieceTags) => tags.head.find((token) => !FILLER_WORDS.has(token.lower) && token.lower !== "also");

/** Opens like the rest of a clause: with a preposition, conjunction or verb ("In the matrix.", "And releases energy."). */
function opensAsContinuation(tags: PieceTags): boolean {
  const first = firstWord(tags);
  if (!first || /^let['’]?s$/.test(first.lower)) return false;
  return CONTINUING_TAGS.some((tag) => first.tags.has(tag)) || first.lower === "to";
}

/** Opens with a verb: the subject was said before the pause ("Is the empty form of the carrier."). */
const opensWithVerb = (tags: PieceTags | undefined) => {
  const first = tags && firstWord(tags);
  return first !== undefined && first.tags.has("Verb") && !/^let['’]?s$/.test(first.lower);
};

/**
 * The piece goes on in the next one: it stops mid-phrase ("… the process by which."), is only fillers
 * ("Okay.", "So."), ends with a preposition whose object opens the next piece, is a short dependent clause
 * ("If the price is below the equilibrium price."), or is a verbless subject whose verb follows the pause
 * ("Its partner nad plus." + "Is the empty form of the carrier.").
 */
function leansForward(piece: Piece, tags: PieceTags, next: PieceTags | undefined): "no" | "open" | "subject" {
  const words = wordsOf(piece.text);
  if (OPEN_ENDINGS.has(words.at(-1)?.lower ?? "") || words.every((word) => FILLER_WORDS.has(word.lower))) return "open";
  // "… new oceanic crust forms at." + "A mid ocean ridge …": the preposition's object follows the pause.
  const nextFirst = next?.head[0];
  if (tags.lastIsPreposition && nextFirst && !FILLER_WORDS.has(nextFirst.lower) && !nextFirst.tags.has("Pronoun")) {
    if (OBJECT_TAGS.some((tag) => nextFirst.tags.has(tag))) return "open";
  }
  // "If the price is below the equilibrium price." waits for its main clause.
  if (SUBORDINATORS.has(firstSaidWord(piece)) && words.length < SHORTEST_SUBORDINATE_CLAUSE_WORDS) return "open";
  return !tags.verb && !opensAsContinuation(tags) && opensWithVerb(next) ? "subject" : "no";
}

/**
 * Pairs of content words (plurals folded) said in a row within a piece: a pause between two words that make
 * such a pair elsewhere cut a phrase ("… the first stage of cellular." + "Respiration and it splits …").
 */
function pairsSaid(pieces: readonly Piece[]): Set<string> {
  const pairs = new Set<string>();
  for (const piece of pieces) {
    const words = wordsOf(piece.text).map((word) => normalizeTerm(word.lower));
    for (let index = 1; index < words.length; index += 1) {
      if (ENGLISH_STOP_WORDS.has(words[index - 1]) || ENGLISH_STOP_WORDS.has(words[index])) continue;
      pairs.add(`${words[index - 1]} ${words[index]}`);
    }
  }
  return pairs;
}

/** The last word of `left` and the first of `right` make a pair the transcript says elsewhere. */
function splitsPair(left: Piece, right: Piece, pairs: ReadonlySet<string>): boolean {
  const last = wordsOf(left.text).at(-1)?.lower;
  const first = wordsOf(right.text)[0]?.lower;
  return last !== undefined && first !== undefined && pairs.has(`${normalizeTerm(last)} ${normalizeTerm(first)}`);
}

/**
 * The piece ends the clause before it: it has no verb ("One more nadh for each pyruvate."), opens with a
 * copula or relative pronoun ("Is a series of eight reactions …", "Which includes …"), or is short and opens
 * with a preposition, conjunction or verb ("Takes place in the mitochondrial matrix."). A short clause of its
 * own ("Pyruvate is a three carbon molecule.") is none.
 */
function isTail(piece: Piece, tags: PieceTags): boolean {
  if (!tags.verb || CLAUSE_TAIL_OPENERS.has(firstSaidWord(piece))) return true;
  return piece.to - piece.from < SHORTEST_PAUSE_SENTENCE_WORDS && opensAsContinuation(tags);
}

/** "… the energy stored." + "In its bonds." → "… the energy stored in its bonds." (the pause's full stop and capital go). */
function joined(left: Piece, right: Piece): Piece {
  // The capital was the pause's, unless the word is "I" or an acronym.
  const first = /^\S+/.exec(right.text)?.[0] ?? "";
  const keepsCapital = /^I(?:['’](?:m|ll|ve|d))?\W*$/.test(first) || (first.match(/\p{Lu}/gu) ?? []).length > 1;
  const rightText = keepsCapital ? right.text : right.text.charAt(0).toLowerCase() + right.text.slice(1);
  return { text: `${left.text.replace(/\.$/, "")} ${rightText}`, from: left.from, to: right.to };
}

/**
 * Rejoins what pauses cut apart in a pause-punctuated transcript, while a unit stays within
 * LONGEST_UNIT_WORDS: a piece that leans forward (ends open, is a subject waiting for its verb, or its last
 * word makes a pair said elsewhere with the next piece's first: "cellular." + "Respiration …") joins the
 * next one; a tail joins the piece before it; a tail that leans forward does both ("… chain at." + "All
 * while anaerobic." + "Respiration has a chain …"). Short pieces that are clauses of their own stay apart.
 * A joined unit keeps the start of its first piece.
 */
function mergeFragments(pieces: readonly Piece[], unsure: (piece: Piece) => boolean): Piece[] {
  const tags = tagPieces(pieces);
  const pairs = pairsSaid(pieces);
  const merged: Piece[] = [];
  let lastLeansForward = false;
  pieces.forEach((piece, index) => {
    const last = merged.at(-1);
    // Misrecognised speech ends where it ends: joined to a sentence, it would take the sentence down with it.
    if (soundsGarbled(piece) || unsure(piece) || (last && (soundsGarbled(last) || unsure(last)))) {
      merged.push(piece);
      lastLeansForward = false;
      return;
    }
    const next = pieces[index + 1];
    let forward = leansForward(piece, tags[index], tags[index + 1]);
    if (forward === "no" && next !== undefined && splitsPair(piece, next, pairs)) forward = "open";
    // A subject waiting for its verb, or fillers opening the next sentence, do not end the clause before; a
    // lone "and" or "but" ("… that sellers are willing." + "And." + "Able to sell …") joins both sides.
    const fillers = wordsOf(piece.text).every((word) => FILLER_WORDS.has(word.lower) && !CONJUNCTIONS.has(word.lower));
    const endsLast = forward !== "subject" && !fillers && isTail(piece, tags[index]);
    if (last && piece.to - last.from <= LONGEST_UNIT_WORDS && (lastLeansForward || endsLast)) {
      merged[merged.length - 1] = joined(last, piece);
    } else {
      merged.push(piece);
    }
    lastLeansForward = forward !== "no";
  });
  return merged;
}

/** Words English never puts right after an article (see analysis' isGarbled, which reads tags). */
const NEVER_AFTER_ARTICLE = new Set(["a", "an", "the", "and", "or", "but", "of", "this", "these", "those"]);

/** A piece with an article right before a preposition, conjunction or determiner: "So the for a in the and sell them …". */
function soundsGarbled(piece: Piece): boolean {
  const words = wordsOf(piece.text);
  return words.some(
    (word, index) =>
      ARTICLES.has(word.lower) &&
      index + 1 < words.length &&
      (NEVER_AFTER_ARTICLE.has(words[index + 1].lower) || isPrepositionWord(words[index + 1].lower)),
  );
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

  const pieces: Piece[] = [];
  let wordIndex = 0;
  for (const sentence of splitSentences(transcript)) {
    const count = wordsOf(sentence).length;
    if (count <= LONGEST_UNIT_WORDS) {
      pieces.push({ text: sentence, from: wordIndex, to: wordIndex + count });
    } else {
      for (const [from, to] of unitRanges(wordIndex, Math.min(wordIndex + count, words.length), segmentOf)) {
        pieces.push({ text: collapsed.slice(words[from].start, words[to - 1].end), from, to });
      }
    }
    wordIndex += count;
  }
  /** Whether any of the words was said in a segment the recogniser was unsure of. */
  const unsure = (piece: Piece) =>
    segmentOf.slice(piece.from, piece.to).some((segmentIndex) => (note.segments[segmentIndex]?.confidence ?? 1) < LOW_CONFIDENCE);
  const units = punctuatedByPauses(transcript, note.segments) ? mergeFragments(pieces, unsure) : pieces;
  return units.map((piece) => ({ text: piece.text, startTime: startTimeAt(piece.from, piece.to), unsure: unsure(piece) }));
}

/**
 * Where a user note points on the timeline: the start of the transcript segment playing at its timestamp (so a
 * client jumps to the start of what was being said, as for transcript material), or the timestamp itself when
 * the note has no timed segments.
 */
function segmentStartAt(segments: SourceNote["segments"], seconds: number): number {
  let start: number | undefined;
  for (const segment of segments) if (segment.startTime <= seconds && (start === undefined || segment.startTime > start)) start = segment.startTime;
  return (
    start ??
    segments.reduce<number | undefined>(
      (first, segment) => (first === undefined || segment.startTime < first ? segment.startTime : first),
      undefined,
    ) ??
    seconds
  );
}

/** A user's text notes, sentence by sentence, each at the transcript segment playing at the note's timestamp. */
function userNoteUnits(note: SourceNote): DraftUnit[] {
  return note.userNotes
    .filter((userNote) => userNote.contentType === "text")
    .sort((a, b) => a.timestamp - b.timestamp)
    .flatMap((userNote) =>
      splitSentences(userNote.content).flatMap((sentence) => {
        const words = wordsOf(sentence);
        const startTime = segmentStartAt(note.segments, userNote.timestamp);
        if (words.length <= LONGEST_UNIT_WORDS) return [{ text: sentence, startTime }];
        return evenWindows(0, words.length).map(([from, to]) => ({
          text: sentence.slice(words[from].start, words[to - 1].end),
          startTime,
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

/** A line this short without closing punctuation, followed by a capital, is a heading: it stays a unit of its own. */
const LONGEST_HEADING_WORDS = 8;

/**
 * A page's text as the sentence splitter should see it. Extracted text is wrapped (pdftotext writes a line
 * break at every line, and the splitter takes a line break as a sentence's end): the lines of a paragraph are
 * rejoined, hyphenation at a line's end undone; blank lines, lines ending a sentence and headings (a short
 * line without closing punctuation before a capital) keep their break.
 */
function unwrapped(text: string): string {
  const lines = text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trim());
  let result = "";
  lines.forEach((line, index) => {
    if (index === 0) {
      result = line;
      return;
    }
    const previous = lines[index - 1];
    const heading = !/[.!?:;,]$/.test(previous) && wordsOf(previous).length <= LONGEST_HEADING_WORDS && /^\p{Lu}/u.test(line);
    if (!previous || !line || /[.!?:]$/.test(previous) || heading) result += `\n${line}`;
    else if (/\p{L}-$/u.test(previous) && /^\p{Ll}/u.test(line)) result = result.slice(0, -1) + line;
    else result += ` ${line}`;
  });
  return result;
}

/** A document's pages as units: sentence by sentence, a long sentence cut into even windows, each on its page. */
function documentUnits(document: SourceDocument): DraftUnit[] {
  return [...document.pages]
    .sort((a, b) => a.number - b.number)
    .flatMap((page) =>
      splitSentences(unwrapped(page.text)).flatMap((sentence) => {
        const words = wordsOf(sentence);
        if (words.length <= LONGEST_UNIT_WORDS) return [{ text: sentence, startTime: null, page: page.number }];
        return evenWindows(0, words.length).map(([from, to]) => ({
          text: sentence.slice(words[from].start, words[to - 1].end),
          startTime: null,
          page: page.number,
        }));
      }),
    );
}

/**
 * The sources as units: the notes in note order then spoken order, then the documents in order, page by page.
 * Units without a word are dropped.
 */
export function buildTextUnits(notes: readonly SourceNote[], documents: readonly SourceDocument[] = []): TextUnit[] {
  const units: TextUnit[] = [];
  const sources = [
    ...notes.map((note) => ({ sourceId: note.noteId, drafts: interleaveByTime(transcriptUnits(note), userNoteUnits(note)) })),
    ...documents.map((document) => ({ sourceId: document.documentId, drafts: documentUnits(document) })),
  ];
  sources.forEach((source, sourceIndex) => {
    const drafts = source.drafts
      .map((draft) => ({ ...draft, text: withoutHesitations(draft.text) }))
      .filter((draft) => wordsOf(draft.text).length > 0);
    drafts.forEach((draft, index) => {
      units.push({
        id: units.length,
        sourceId: source.sourceId,
        sourceIndex,
        text: draft.text,
        statement: asStatement(draft.text),
        startTime: draft.startTime,
        page: draft.page ?? null,
        position: drafts.length > 1 ? index / (drafts.length - 1) : 0,
        unsure: draft.unsure ?? false,
      });
    });
  });
  return units;
}
