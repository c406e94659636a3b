import { readFile } from "node:fs/promises";
import { LIBRIVOX_DIRECTORY } from "@study/testkit";

/**
 * Scoring normalisation: lower case, punctuation removed, and the spelling variants a recogniser may
 * legitimately choose mapped onto the reference's ("mr" for "mister").
 */
const SPELLING_VARIANTS: Record<string, string> = { mr: "mister", mrs: "missus", dr: "doctor" };

export function scoringWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]/gu, " ")
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => SPELLING_VARIANTS[word] ?? word);
}

/** Word-level Levenshtein distance: substitutions + deletions + insertions. */
export function wordEdits(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, index) => index);
  for (let row = 1; row <= reference.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= hypothesis.length; column += 1) {
      const substitution = previous[column - 1] + (reference[row - 1] === hypothesis[column - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[column] + 1, current[column - 1] + 1));
    }
    previous = current;
  }
  return previous[hypothesis.length];
}

/** Corpus word error rate: all edits over all reference words (not a mean of per-clip rates). */
export function wordErrorRate(pairs: { reference: string; hypothesis: string }[]): number {
  let edits = 0;
  let words = 0;
  for (const { reference, hypothesis } of pairs) {
    const referenceWords = scoringWords(reference);
    edits += wordEdits(referenceWords, scoringWords(hypothesis));
    words += referenceWords.length;
  }
  return edits / words;
}

/** The librivox clips' reference transcripts by clip path, from the `transcription` file ("<s> ... </s> (id)"). */
export async function librivoxReferences(): Promise<Map<string, string>> {
  const lines = (await readFile(`${LIBRIVOX_DIRECTORY}/transcription`, "utf8")).split("\n").filter((line) => line.trim());
  return new Map(
    lines.map((line) => {
      const match = /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(line.trim());
      if (!match) throw new Error(`Unexpected transcription line: ${line}`);
      return [`${LIBRIVOX_DIRECTORY}/${match[2]}.wav`, match[1]];
    }),
  );
}
