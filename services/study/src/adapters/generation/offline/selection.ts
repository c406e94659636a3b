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

/** How often one term may be the answer, pass by pass: first every term once, then twice, then freely. */
const TERM_REPEATS_PER_PASS = [1, 2, Number.POSITIVE_INFINITY];

/**
 * The best `count` candidates, each from a different unit and with a different text, spread over as many
 * terms as possible. Best = highest score; ties go to the earlier unit, then the text, so the choice is
 * stable. `accept` is asked last, only about candidates that would be taken, so costly checks run rarely.
 * Returns fewer when the candidates run out.
 */
export function selectDiverse<T extends Candidate>(
  candidates: readonly T[],
  count: number,
  options: { usedUnits?: ReadonlySet<number>; accept?: (candidate: T) => boolean } = {},
): T[] {
  const ranked = [...candidates].sort((a, b) => b.score - a.score || a.unitId - b.unitId || compareText(a.text, b.text));
  const chosen: T[] = [];
  const units = new Set(options.usedUnits);
  const rejected = new Set<T>();
  const texts = new Set<string>();
  const termUses = new Map<string, number>();
  for (const repeats of TERM_REPEATS_PER_PASS) {
    for (const candidate of ranked) {
      if (chosen.length >= count) return chosen;
      const text = candidate.text.toLowerCase();
      if (units.has(candidate.unitId) || texts.has(text) || (termUses.get(candidate.termKey) ?? 0) >= repeats || rejected.has(candidate)) continue;
      if (options.accept && !options.accept(candidate)) {
        rejected.add(candidate);
        continue;
      }
      chosen.push(candidate);
      units.add(candidate.unitId);
      texts.add(text);
      termUses.set(candidate.termKey, (termUses.get(candidate.termKey) ?? 0) + 1);
    }
  }
  return chosen;
}
