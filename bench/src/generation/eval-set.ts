// The labelled lectures of bench/generation/ (issue #18): loaded, checked against their own text, turned into
// the generator's input. Nothing here runs a generator: the labels are checked before any output is seen.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { KINDS, normalizeTerm, normalizeWhitespace, splitSentences, type Kind } from "./metrics";

/** A key term a teacher accepts as an answer, with other accepted forms (synonyms, other names, irregular plurals). */
export interface KeyTermLabel {
  term: string;
  also: string[];
  /** What it names, for names and numbers (see metrics' kindOf); absent: a thing. */
  kind?: Kind;
}

/** A fact a teacher would test: where the source states it, and which answers ask about it. */
export interface KeyFactLabel {
  id: string;
  /** Verbatim from the source (case and whitespace aside), inside one sentence and, for a transcript, one segment. */
  excerpt: string;
  /** Key terms (or their forms) whose blank or question asks about this fact. */
  answers: string[];
}

export interface SegmentLabel {
  start: number;
  end: number;
  text: string;
  /** 0-1 when the recognition engine reports it. */
  confidence?: number;
  /** Recognised wrongly: no well-formed clause, words the speaker did not say (a human's reading, not a threshold). */
  garbled?: boolean;
}

export interface Lecture {
  id: string;
  file: string;
  subject: string;
  course: string;
  title: string;
  kind: "typed" | "transcript";
  /** What the note is there to test, when more than its subject. */
  purpose?: string;
  engine?: string;
  /** Typed notes: the text, by paragraph. */
  paragraphs: string[];
  /** Transcripts: the timed segments. */
  segments: SegmentLabel[];
  keyTerms: KeyTermLabel[];
  keyFacts: KeyFactLabel[];
  /** The note's whole text as the generator receives it. */
  text: string;
  /** The text's sentences (see splitSentences), garbled segments' sentences left out. */
  sentences: string[];
  /** The text of the segments labelled garbled. */
  garbledTexts: string[];
}

interface RawLecture {
  id: string;
  subject: string;
  course: string;
  title: string;
  kind: "typed" | "transcript";
  purpose?: string;
  engine?: string;
  paragraphs?: string[];
  segments?: SegmentLabel[];
  keyTerms: (string | { term: string; also?: string[]; kind?: Kind })[];
  keyFacts: KeyFactLabel[];
}

export const EVAL_SET_DIRECTORY = join(__dirname, "..", "..", "generation");

const lowerText = (text: string) => normalizeWhitespace(text).toLowerCase();

/** How often `part` occurs in `text`, case and whitespace aside. */
function occurrences(text: string, part: string): number {
  const haystack = lowerText(text);
  const needle = lowerText(part);
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) count += 1;
  return count;
}

/** Whether `form` occurs in `text` as whole words, case aside. */
export function containsWords(text: string, form: string): boolean {
  const escaped = normalizeWhitespace(form).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "iu").test(normalizeWhitespace(text));
}

function toLecture(raw: RawLecture, file: string): Lecture {
  const segments = raw.segments ?? [];
  const paragraphs = raw.paragraphs ?? [];
  // A typed note is its paragraphs; a transcript its segments joined as the media service joins them.
  const text = raw.kind === "typed" ? paragraphs.join("\n\n") : segments.map((segment) => segment.text).join(" ");
  const garbledTexts = segments.filter((segment) => segment.garbled).map((segment) => segment.text);
  const sentences = splitSentences(text).filter((sentence) => !garbledTexts.some((garbled) => lowerText(garbled).includes(lowerText(sentence))));
  return {
    id: raw.id,
    file,
    subject: raw.subject,
    course: raw.course,
    title: raw.title,
    kind: raw.kind,
    purpose: raw.purpose,
    engine: raw.engine,
    paragraphs,
    segments,
    keyTerms: raw.keyTerms.map((entry) =>
      typeof entry === "string"
        ? { term: entry, also: [] }
        : { term: entry.term, also: entry.also ?? [], ...(entry.kind ? { kind: entry.kind } : {}) },
    ),
    keyFacts: raw.keyFacts,
    text,
    sentences,
    garbledTexts,
  };
}

/** The label mistakes a lecture has (empty when none): what the benchmark refuses to run on. */
export function labelProblems(lecture: Lecture): string[] {
  const problems: string[] = [];
  const at = (what: string) => `${lecture.file}: ${what}`;
  if (lecture.kind === "typed" && !lecture.paragraphs.length) problems.push(at("a typed note needs paragraphs"));
  if (lecture.kind === "transcript") {
    if (!lecture.segments.length) problems.push(at("a transcript needs segments"));
    lecture.segments.forEach((segment, index) => {
      const previous = lecture.segments[index - 1];
      if (!(segment.start <= segment.end) || (previous && segment.start < previous.end)) problems.push(at(`segment ${index} is out of order`));
      if (segment.confidence !== undefined && !(segment.confidence >= 0 && segment.confidence <= 1))
        problems.push(at(`segment ${index}: confidence not in 0-1`));
    });
  }
  const forms = new Map<string, string>();
  for (const term of lecture.keyTerms) {
    const all = [term.term, ...term.also];
    if (!all.some((form) => containsWords(lecture.text, form))) problems.push(at(`key term "${term.term}" does not occur in the text`));
    if (term.kind !== undefined && !KINDS.includes(term.kind)) problems.push(at(`key term "${term.term}": unknown kind "${term.kind}"`));
    for (const form of all) forms.set(normalizeTerm(form), term.term);
  }
  const ids = new Set<string>();
  for (const fact of lecture.keyFacts) {
    if (ids.has(fact.id)) problems.push(at(`fact id "${fact.id}" repeats`));
    ids.add(fact.id);
    const count = occurrences(lecture.text, fact.excerpt);
    if (count !== 1) problems.push(at(`fact "${fact.id}": the excerpt occurs ${count} times in the text (once expected)`));
    const sentence = lecture.sentences.find((candidate) => lowerText(candidate).includes(lowerText(fact.excerpt)));
    if (count === 1 && !sentence) problems.push(at(`fact "${fact.id}": the excerpt is not inside one sentence`));
    if (lecture.kind === "transcript" && !lecture.segments.some((segment) => !segment.garbled && occurrences(segment.text, fact.excerpt) === 1))
      problems.push(at(`fact "${fact.id}": the excerpt is not inside one good segment`));
    if (!fact.answers.length) problems.push(at(`fact "${fact.id}" has no answers`));
    for (const answer of fact.answers) {
      if (!forms.has(normalizeTerm(answer))) problems.push(at(`fact "${fact.id}": answer "${answer}" is not a key term`));
    }
    if (sentence && !fact.answers.some((answer) => containsWords(sentence, answer)))
      problems.push(at(`fact "${fact.id}": none of its answers occurs in its sentence`));
  }
  if (lecture.sentences.length < 10 || lecture.sentences.length > 45) problems.push(at(`${lecture.sentences.length} sentences (10-40 wanted)`));
  return problems;
}

/** Every lecture of the set, in file order; throws with every label problem found. */
export function loadEvalSet(directory = EVAL_SET_DIRECTORY): Lecture[] {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith(".json"))
    .sort();
  const lectures = files.map((file) => toLecture(JSON.parse(readFileSync(join(directory, file), "utf8")) as RawLecture, file));
  const problems = lectures.flatMap(labelProblems);
  const seen = new Set<string>();
  for (const lecture of lectures) {
    if (seen.has(lecture.id)) problems.push(`${lecture.file}: lecture id "${lecture.id}" repeats`);
    seen.add(lecture.id);
  }
  if (problems.length) throw new Error(`The evaluation set has label problems:\n${problems.join("\n")}`);
  return lectures;
}

/** The study service's SourceNote, built from a lecture (structurally: the bench does not import the domain's types). */
export interface NoteInput {
  noteId: string;
  title: string;
  transcript: string;
  segments: { text: string; startTime: number; endTime: number; confidence?: number }[];
  userNotes: { timestamp: number; content: string; contentType: string }[];
}

/**
 * The note the generator reads. A segment's confidence is passed along when the lecture has one: the study
 * service's SourceSegment has no such field today (see bench/generation/README.md), so the generator ignores it until it has.
 */
export function noteOf(lecture: Lecture): NoteInput {
  return {
    noteId: `bench-${lecture.id}`,
    title: lecture.title,
    transcript: lecture.text,
    segments: lecture.segments.map((segment) => ({
      text: segment.text,
      startTime: segment.start,
      endTime: segment.end,
      ...(segment.confidence === undefined ? {} : { confidence: segment.confidence }),
    })),
    userNotes: [],
  };
}
