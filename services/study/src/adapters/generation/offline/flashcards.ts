import type { GeneratedFlashcard } from "../../../domain/study-material";
import type { StudyText } from "./analysis";
import type { Definition } from "./definitions";
import { compareText } from "./deterministic";
import type { DifficultyProfile } from "./difficulty-profile";
import { blankOut, candidateScore, definedName, focusFirst, isFact, sourceOf, termOf, termToAskAbout } from "./exercises";
import type { KeyTerm } from "./key-terms";
import { capitalize } from "./prose";
import { selectDiverse, type Candidate } from "./selection";
import type { TextUnit } from "./text-units";

export type FlashcardKind = "definition" | "cloze" | "context";

interface CardCandidate extends Candidate {
  kind: FlashcardKind;
  card: GeneratedFlashcard;
}

function definitionFront(name: string, definition: Definition): string {
  switch (definition.verb) {
    case "is":
    case "are":
      return `What ${definition.verb} ${name}?`;
    case "refers to":
      return `What does ${name} refer to?`;
    case "is defined as":
      return `How is ${name} defined?`;
    default:
      return `What does ${name} ${definition.verb.replace(/s$/, "")}?`;
  }
}

function definitionCard(text: StudyText, profile: DifficultyProfile, definition: Definition): CardCandidate {
  const term = termOf(text, definition);
  const unit = text.units[definition.unitId];
  const description = `${capitalize(definition.description)}.`;
  const name = definedName(term, definition);
  const card = profile.reverseDefinitions
    ? { front: `Which term is this? ${description}`, back: `${capitalize(name)}. ${definition.statement}`, source: sourceOf(unit) }
    : { front: definitionFront(name, definition), back: description, source: sourceOf(unit) };
  const score = candidateScore(text, profile, profile.kindWeights.definition, term, unit);
  return { kind: "definition", unitId: unit.id, termKey: term.key, text: card.front, score, card };
}

/** The unit with a key term blanked out; the back gives the term and the whole sentence. */
function clozeCard(text: StudyText, profile: DifficultyProfile, unit: TextUnit): CardCandidate | null {
  const term = termToAskAbout(text, unit.id, profile);
  const cloze = term && blankOut(unit.statement, term);
  if (!term || !cloze) return null;
  const card = { front: cloze.blanked, back: `${cloze.answer} — ${unit.statement}`, source: sourceOf(unit) };
  const score = candidateScore(text, profile, profile.kindWeights.cloze, term, unit);
  return { kind: "cloze", unitId: unit.id, termKey: term.key, text: card.front, score, card };
}

/** Fallback for terms no other card asks about: the term, and the most informative thing the notes say about it. */
function contextCard(text: StudyText, profile: DifficultyProfile, term: KeyTerm): CardCandidate | null {
  const unitId = term.unitIds
    .filter((id) => isFact(text.units[id]))
    .sort((a, b) => Number(text.focus[b]) - Number(text.focus[a]) || text.informativeness[b] - text.informativeness[a] || a - b)[0];
  if (unitId === undefined) return null;
  const unit = text.units[unitId];
  const card = { front: `What do your notes say about ${term.inProse}?`, back: unit.statement, source: sourceOf(unit) };
  return { kind: "context", unitId, termKey: term.key, text: card.front, score: candidateScore(text, profile, 1, term, unit), card };
}

/**
 * Up to `count` cards: definition cards (term → definition; HARD asks for the term from the definition) and
 * cloze cards (a key term blanked out of an informative sentence), scored for the level (see candidateScore)
 * and chosen so that no unit, front or term repeats while others are left. When the sentences run out,
 * term → context cards for the terms not yet asked about fill up. Fewer than `count` only when the text has
 * fewer usable sentences and terms than that. In text order, those on a focus area first.
 */
export function buildFlashcards(text: StudyText, profile: DifficultyProfile, count: number): { kind: FlashcardKind; card: GeneratedFlashcard }[] {
  const cards = selectDiverse(
    [
      ...text.definitions.map((definition) => definitionCard(text, profile, definition)),
      ...text.units.filter(isFact).flatMap((unit) => clozeCard(text, profile, unit) ?? []),
    ],
    count,
  );
  const asked = new Set(cards.map((card) => card.termKey));
  const fallback = text.terms.filter((term) => !asked.has(term.key)).flatMap((term) => contextCard(text, profile, term) ?? []);
  return [...cards, ...selectDiverse(fallback, count - cards.length)]
    .sort((a, b) => focusFirst(text, a.unitId, b.unitId) || compareText(a.kind, b.kind))
    .map(({ kind, card }) => ({ kind, card }));
}
