import { compareText } from "./deterministic";

/** Something the generator could ask: a card or a question, scored for the level asked. */
export interface Candidate {
  unitId: number;
  /** The key term it asks about. */
  termKey: string;
  /** What must not repeat (the card front or question text), compared case-insensitively. */
  text: string;
  score: number;
  /** Other keys the answer is the same as: the term a definition equates its term with ("the master clock is the suprachiasmatic nucleus"). */
  alsoKeys?: readonly string[];
  /** The answer names someone or something (see KeyTerm.entity): its shorter form is the same answer ("Elinor", "Elinor Dashwood"). */
  isName?: boolean;
}

interface AnswerKey {
  words: string[];
  isName: boolean;
}

/** Titles before a name: "Mrs Carlill" is the Carlill of "Carlill v Carbolic Smoke Ball Co". */
const TITLES = new Set(["mr", "mrs", "ms", "miss", "dr", "sir", "lady", "lord", "dame", "professor"]);

function keysOf(candidate: Candidate): AnswerKey[] {
  const isName = candidate.isName === true;
  return [candidate.termKey, ...(candidate.alsoKeys ?? [])].map((key) => {
    const words = key.split(" ");
    return { words: isName && words.length > 1 && TITLES.has(words[0]) ? words.slice(1) : words, isName };
  });
}

const containsWords = (outer: readonly string[], inner: readonly string[]) =>
  outer.some((_, start) => start + inner.length <= outer.length && inner.every((word, offset) => outer[start + offset] === word));

/**
 * Two answers are the same when their keys are, or when one is a phrase of two or more words, or a name,
 * inside the other ("ocean trench" and "deep ocean trench"; "Elinor" and "Elinor Dashwood"); a single common
 * word inside a phrase is another answer ("acid" and "weak acid").
 */
function sameAnswer(a: AnswerKey, b: AnswerKey): boolean {
  const [shorter, longer] = a.words.length <= b.words.length ? [a, b] : [b, a];
  if (shorter.words.length === longer.words.length) return shorter.words.join(" ") === longer.words.join(" ");
  return (shorter.words.length > 1 || shorter.isName) && containsWords(longer.words, shorter.words);
}

/**
 * The best `count` candidates, each asking about a different term (see sameAnswer) and with a different text, from different
 * units while there are enough (a unit asked about twice then asks for another of its terms). Best = highest
 * score; ties go to the earlier unit, then the text, so the choice is stable. `usedUnits` and `usedTerms` are
 * not asked about again at all. `accept` is asked last, only about candidates that would be taken, so costly checks run
 * rarely. Returns fewer when the candidates run out.
 */
export function selectDiverse<T extends Candidate>(
  candidates: readonly T[],
  count: number,
  options: { usedUnits?: ReadonlySet<number>; usedTerms?: ReadonlySet<string>; accept?: (candidate: T) => boolean } = {},
): T[] {
  const ranked = [...candidates].sort((a, b) => b.score - a.score || a.unitId - b.unitId || compareText(a.text, b.text));
  const chosen: T[] = [];
  const units = new Set<number>();
  const rejected = new Set<T>();
  const texts = new Set<string>();
  const answers: AnswerKey[] = [...(options.usedTerms ?? [])].map((key) => ({ words: key.split(" "), isName: false }));
  const repeats = (candidate: T) => keysOf(candidate).some((key) => answers.some((answer) => sameAnswer(key, answer)));
  for (const unitsMayRepeat of [false, true]) {
    for (const candidate of ranked) {
      if (chosen.length >= count) return chosen;
      const text = candidate.text.toLowerCase();
      if (options.usedUnits?.has(candidate.unitId) || (!unitsMayRepeat && units.has(candidate.unitId))) continue;
      if (texts.has(text) || rejected.has(candidate) || repeats(candidate)) continue;
      if (options.accept && !options.accept(candidate)) {
        rejected.add(candidate);
        continue;
      }
      chosen.push(candidate);
      units.add(candidate.unitId);
      texts.add(text);
      answers.push(...keysOf(candidate));
    }
  }
  return chosen;
}
