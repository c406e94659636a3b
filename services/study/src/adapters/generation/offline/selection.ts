import { compareText } from "./deterministic";

/** Something the generator could ask: a card or a question, scored for the level asked. */
export interface Candidate {
  unitId: number;
  /** The key term it asks about. */
  termKey: string;
  /** What must not repeat (the card front or question text), compared case-insensitively. */
  text: string;
  score: number;
}

/**
 * The best `count` candidates, each asking about a different term and with a different text, from different
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
  const terms = new Set<string>(options.usedTerms);
  for (const unitsMayRepeat of [false, true]) {
    for (const candidate of ranked) {
      if (chosen.length >= count) return chosen;
      const text = candidate.text.toLowerCase();
      if (options.usedUnits?.has(candidate.unitId) || (!unitsMayRepeat && units.has(candidate.unitId))) continue;
      if (texts.has(text) || terms.has(candidate.termKey) || rejected.has(candidate)) continue;
      if (options.accept && !options.accept(candidate)) {
        rejected.add(candidate);
        continue;
      }
      chosen.push(candidate);
      units.add(candidate.unitId);
      texts.add(text);
      terms.add(candidate.termKey);
    }
  }
  return chosen;
}
