import type { Difficulty, SourceNote, SourceReference } from "../../../../src/domain/study-material";
import type { GenerationInput } from "../../../../src/application/ports/study-material-generator.port";

export function generationInput(notes: SourceNote[], difficulty: Difficulty = "MEDIUM"): GenerationInput {
  return { courseName: "BIO 101", notes, difficulty };
}

/** Lower case, hesitations dropped, punctuation as spaces: to compare what the generator quotes with what was said. */
export function comparable(text: string): string {
  return text
    .toLowerCase()
    .replace(/(?<![\p{L}])(?:um+|uh+)(?![\p{L}])/gu, " ")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Whether the note's transcript says `text` (give or take case, punctuation and hesitations). */
export function transcriptSays(note: SourceNote, text: string): boolean {
  return comparable(note.transcript).includes(comparable(text));
}

/** The segment a source reference points at. */
export function segmentOf(note: SourceNote, source: SourceReference | null) {
  expect(source).not.toBeNull();
  expect(source?.noteId).toBe(note.noteId);
  const segment = note.segments.find((candidate) => candidate.startTime === source?.startTime);
  expect(segment).toBeDefined();
  return segment as SourceNote["segments"][number];
}

/**
 * Whether a statement starts in the segment: the segment holds its first word, and its first three words
 * follow on in the segment (or run into the next one, for short pocketsphinx phrases).
 */
export function startsIn(note: SourceNote, segment: SourceNote["segments"][number], statement: string): boolean {
  const index = note.segments.indexOf(segment);
  const words = comparable(statement).split(" ");
  const here = ` ${comparable(segment.text)} `;
  const withNext = ` ${comparable(`${segment.text} ${note.segments[index + 1]?.text ?? ""}`)} `;
  return here.includes(` ${words[0]} `) && withNext.includes(` ${words.slice(0, 3).join(" ")} `);
}

/** The source sentence an explanation quotes last: `…: "<sentence>"`. */
export function quotedSource(explanation: string): string {
  return /: "(.+)"$/.exec(explanation)?.[1] ?? "";
}
