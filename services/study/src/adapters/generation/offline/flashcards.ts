import type { GeneratedFlashcard } from "../../../domain/study-material";
import type { StudyText } from "./analysis";
import type { Definition } from "./definitions";
import { compareText } from "./deterministic";
import type { DifficultyProfile } from "./difficulty-profile";
import {
  ANSWERS_PER_UNIT,
  answerFor,
  blankPhrase,
  candidateScore,
  definedName,
  focusFirst,
  isFact,
  isNameAnswer,
  isNameTerm,
  isPersonTerm,
  nameKey,
  NEXT_ANSWER_FACTOR,
  sameAnswerKeys,
  sourceOf,
  termOf,
  termsToAskAbout,
} from "./exercises";
import { capitalize } from "./prose";
import { selectDiverse, type Candidate } from "./selection";
import type { TextUnit } from "./text-units";

export type FlashcardKind = "definition" | "cloze";

interface CardCandidate extends Candidate {
  kind: FlashcardKind;
  card: GeneratedFlashcard;
}

/** The question a definition card asks: "What is …?", "Who is …?" of a person (#29). */
function definitionFront(name: string, definition: Definition, person: boolean): string {
  switch (definition.verb) {
    case "is":
    case "are":
      return `${person ? "Who" : "What"} ${definition.verb} ${name}?`;
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
    ? {
        front: `${isPersonTerm(term) ? "Who is this?" : "Which term is this?"} ${description}`,
        back: `${capitalize(name)}. ${definition.source}`,
        source: sourceOf(unit),
      }
    : { front: definitionFront(name, definition, isPersonTerm(term)), back: description, source: sourceOf(unit) };
  const score = candidateScore(text, profile, profile.kindWeights.definition, term, unit);
  return {
    kind: "definition",
    unitId: unit.id,
    termKey: nameKey(text, term),
    alsoKeys: sameAnswerKeys(text, definition.unitId, term),
    isName: isNameTerm(term),
    text: card.front,
    score,
    card,
  };
}

const DEFINED_BLANK_FACTOR = 0.5;

/**
 * The unit with one of its key terms blanked out (the whole noun phrase it is part of: see answerFor), for each
 * of its best answers; the back gives the answer and the whole sentence.
 */
function clozeCards(text: StudyText, profile: DifficultyProfile, unit: TextUnit): CardCandidate[] {
  return termsToAskAbout(text, unit.id, profile)
    .slice(0, ANSWERS_PER_UNIT)
    .flatMap((term, rank) => {
      const answer = answerFor(text, unit.id, term);
      const cloze = answer && blankPhrase(unit.statement, answer);
      if (!answer || !cloze) return [];
      const card = { front: cloze.blanked, back: `${cloze.answer} — ${unit.statement}`, source: sourceOf(unit) };
      // A defined term is best asked by its definition card; a blank for it comes second.
      const defined = term.defined ? DEFINED_BLANK_FACTOR : 1;
      const score = candidateScore(text, profile, profile.kindWeights.cloze, term, unit) * NEXT_ANSWER_FACTOR ** rank * defined;
      return [
        {
          kind: "cloze" as const,
          unitId: unit.id,
          termKey: answer.key,
          isName: isNameTerm(term) || isNameAnswer(answer),
          alsoKeys: sameAnswerKeys(text, unit.id, term, answer),
          text: card.front,
          score,
          card,
        },
      ];
    });
}

/**
 * Up to `count` cards: definition cards (term → definition; HARD asks for the term from the definition) and
 * cloze cards (a key term blanked out of an informative sentence), scored for the level (see candidateScore)
 * and chosen so that no answer or front repeats, and no unit while others are left. Fewer than `count` only
 * when the text has fewer distinct answers in usable sentences. In text order, those on a focus area first.
 */
export function buildFlashcards(text: StudyText, profile: DifficultyProfile, count: number): { kind: FlashcardKind; card: GeneratedFlashcard }[] {
  const cards = selectDiverse(
    [
      ...text.definitions.map((definition) => definitionCard(text, profile, definition)),
      ...text.units.filter((unit) => isFact(text, unit)).flatMap((unit) => clozeCards(text, profile, unit)),
    ],
    count,
  );
  return cards.sort((a, b) => focusFirst(text, a.unitId, b.unitId) || compareText(a.kind, b.kind)).map(({ kind, card }) => ({ kind, card }));
}
