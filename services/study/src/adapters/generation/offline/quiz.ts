import { TRUE_FALSE_OPTIONS, type GeneratedQuestion } from "../../../domain/study-material";
import type { StudyText } from "./analysis";
import type { Definition } from "./definitions";
import { hashText, seededShuffle } from "./deterministic";
import type { DifficultyProfile } from "./difficulty-profile";
import {
  ANSWERS_PER_UNIT,
  answerFor,
  blankOut,
  candidateScore,
  chooseDistractors,
  definedName,
  focusFirst,
  isFact,
  isNameTerm,
  isPersonTerm,
  nameKey,
  NEXT_ANSWER_FACTOR,
  optionForm,
  sameAnswerKeys,
  sourceOf,
  standsAlone,
  swapTerm,
  termOf,
  termsToAskAbout,
  writtenInPlural,
} from "./exercises";
import type { KeyTerm } from "./key-terms";
import { capitalize } from "./prose";
import { selectDiverse, type Candidate } from "./selection";
import type { TextUnit } from "./text-units";

const DISTRACTORS = 3;
/** A fact for true/false speaks about the subject, not about the class ("I", "you", "let's"). */
const PERSONAL = /(?<![\p{L}'])(?:i|i'm|we|we're|you|you're|your|let's|me|us|our)(?![\p{L}'])/iu;

/** A multiple-choice question whose options are only looked for when it is about to be chosen. */
interface QuestionCandidate extends Candidate {
  question: () => GeneratedQuestion | null;
}

function memoized<T>(compute: () => T): () => T {
  let result: { value: T } | undefined;
  return () => (result ??= { value: compute() }).value;
}

interface FactCandidate extends Candidate {
  unit: TextUnit;
  term: KeyTerm;
}

function multipleChoice(
  text: StudyText,
  profile: DifficultyProfile,
  draft: { question: string; answer: KeyTerm; plural: boolean; visibleText: string; context: string; explanation: string; unit: TextUnit },
): GeneratedQuestion | null {
  const distractors = chooseDistractors(text, draft.answer, profile, {
    count: DISTRACTORS,
    visibleText: draft.visibleText,
    plural: draft.plural,
    context: draft.context,
  });
  if (!distractors) return null;
  const correctAnswer = optionForm(draft.answer, draft.plural);
  const options = seededShuffle([correctAnswer, ...distractors.map((term) => optionForm(term, draft.plural))], draft.question);
  return { question: draft.question, type: "multiple_choice", options, correctAnswer, explanation: draft.explanation, source: sourceOf(draft.unit) };
}

/** "Which term matches this definition: …?" with the defined term among three other key terms. */
function definitionQuestion(text: StudyText, profile: DifficultyProfile, definition: Definition): QuestionCandidate {
  const answer = termOf(text, definition);
  const unit = text.units[definition.unitId];
  const description = capitalize(definition.description);
  // A person is described, not defined, and the options are people (#29).
  const draft = {
    question: isPersonTerm(answer) ? `Who is described here: "${description}"?` : `Which term matches this definition: "${description}"?`,
    answer,
    plural: false,
    visibleText: description,
    context: description,
    explanation: `The notes define ${definedName(answer, definition)}: "${definition.source}"`,
    unit,
  };
  return {
    unitId: unit.id,
    termKey: nameKey(text, answer),
    alsoKeys: sameAnswerKeys(text, definition.unitId, answer),
    isName: isNameTerm(answer),
    text: draft.question,
    score: candidateScore(text, profile, profile.kindWeights.definition, answer, unit),
    question: memoized(() => multipleChoice(text, profile, draft)),
  };
}

/** "Complete the statement: …" with a key term blanked out of a stated fact, for each of the unit's best terms. */
function clozeQuestions(text: StudyText, profile: DifficultyProfile, unit: TextUnit): QuestionCandidate[] {
  return termsToAskAbout(text, unit.id, profile)
    .slice(0, ANSWERS_PER_UNIT)
    .flatMap((answer, rank) => clozeQuestion(text, profile, unit, answer, NEXT_ANSWER_FACTOR ** rank) ?? []);
}

function clozeQuestion(text: StudyText, profile: DifficultyProfile, unit: TextUnit, answer: KeyTerm, factor: number): QuestionCandidate | null {
  // The options are key terms: a term said as part of a longer phrase would be a fragment of the answer.
  if (!answerFor(text, unit.id, answer)?.isTerm) return null;
  const cloze = blankOut(unit.statement, answer);
  if (!cloze) return null;
  const draft = {
    question: `Complete the statement: "${cloze.blanked}"`,
    answer,
    plural: writtenInPlural(answer, cloze.answer),
    visibleText: cloze.blanked,
    context: unit.statement,
    explanation: `The notes say: "${unit.statement}"`,
    unit,
  };
  return {
    unitId: unit.id,
    termKey: nameKey(text, answer),
    isName: isNameTerm(answer),
    alsoKeys: sameAnswerKeys(text, unit.id, answer),
    text: draft.question,
    score: candidateScore(text, profile, profile.kindWeights.cloze, answer, unit) * factor,
    question: memoized(() => multipleChoice(text, profile, draft)),
  };
}

/** A stated fact to ask true or false about, once for each of its best terms (the one a false version swaps). */
function factCandidates(text: StudyText, profile: DifficultyProfile, unit: TextUnit): FactCandidate[] {
  if (PERSONAL.test(unit.statement)) return [];
  return termsToAskAbout(text, unit.id, profile)
    .slice(0, ANSWERS_PER_UNIT)
    .map((term, rank) => ({
      unitId: unit.id,
      termKey: nameKey(text, term),
      isName: isNameTerm(term),
      alsoKeys: sameAnswerKeys(text, unit.id, term),
      text: unit.statement,
      score: candidateScore(text, profile, 1, term, unit) * NEXT_ANSWER_FACTOR ** rank,
      unit,
      term,
    }));
}

/**
 * True/false on a stated fact. The true version is the fact as written; the false one swaps its key term for
 * another key term (chosen like a distractor, so it is plausible; in the same number; never one that a
 * sentence of the notes says the same of, which could make the "false" statement true). A fact whose term has
 * no such replacement stays true.
 */
function trueFalseQuestion(text: StudyText, profile: DifficultyProfile, unit: TextUnit, term: KeyTerm, makeFalse: boolean): GeneratedQuestion {
  const statement = unit.statement;
  const written = term.pattern.exec(statement)?.[0];
  // A term said twice would be swapped twice ("the sorted list … on a list that is already sorted").
  const saidOnce = (statement.match(new RegExp(term.pattern.source, "giu")) ?? []).length === 1;
  // Swapping part of a phrase ("light oxygen" for "light energy") is false for a trivial reason: only whole terms are swapped.
  // A name of no known kind ("the Sun", "Hertzsprung") may be put in for one of another kind: it is not swapped.
  const swappable = term.entity !== "name" && saidOnce && answerFor(text, unit.id, term)?.isTerm && standsAlone(text, unit.id, term);
  if (makeFalse && written && swappable) {
    const plural = writtenInPlural(term, written);
    // The replacement agrees in number with the term it replaces and is not one the notes say the same of.
    const [replacement] = chooseDistractors(text, term, profile, { count: 1, visibleText: statement, plural, context: statement }) ?? [];
    if (replacement) {
      const replacementForm = optionForm(replacement, plural);
      return {
        question: `True or false: ${swapTerm(statement, term, replacementForm)}`,
        type: "true_false",
        options: [...TRUE_FALSE_OPTIONS],
        correctAnswer: "False",
        explanation: `False. The statement puts "${replacementForm}" where the notes say "${written}": "${statement}"`,
        source: sourceOf(unit),
      };
    }
  }
  return {
    question: `True or false: ${statement}`,
    type: "true_false",
    options: [...TRUE_FALSE_OPTIONS],
    correctAnswer: "True",
    explanation: `True. The notes state: "${statement}"`,
    source: sourceOf(unit),
  };
}

/**
 * Up to `count` questions: multiple choice (definition and cloze, four options: the answer and three other key
 * terms of the text, shuffled by a seed taken from the question) and true/false on stated facts, in the
 * level's mix; when one kind runs short the other fills in. True and false alternate (the first one's truth
 * is taken from a hash of its text). No unit is asked about twice. In text order, those on a focus area first.
 */
export function buildQuiz(text: StudyText, profile: DifficultyProfile, count: number): GeneratedQuestion[] {
  const factUnits = text.units.filter((unit) => isFact(text, unit));
  const multipleChoiceCandidates = [
    ...text.definitions.map((definition) => definitionQuestion(text, profile, definition)),
    ...factUnits.flatMap((unit) => clozeQuestions(text, profile, unit)),
  ];
  const statements = factUnits.flatMap((unit) => factCandidates(text, profile, unit));

  const trueFalseWanted = Math.round(count * profile.trueFalseShare);
  const trueFalseAvailable = selectDiverse(statements, count);
  const multipleChoice = selectDiverse(multipleChoiceCandidates, count - Math.min(trueFalseWanted, trueFalseAvailable.length), {
    accept: (candidate) => candidate.question() !== null,
  });
  const usedUnits = new Set(multipleChoice.map((candidate) => candidate.unitId));
  const trueFalse = selectDiverse(statements, count - multipleChoice.length, { usedUnits }).sort((a, b) => a.unitId - b.unitId);

  const firstIsTrue = trueFalse.length > 0 && hashText(trueFalse[0].text) % 2 === 0;
  const trueFalseQuestions = trueFalse.map((candidate, index) => {
    const isTrue = (index % 2 === 0) === firstIsTrue;
    return { unitId: candidate.unitId, question: trueFalseQuestion(text, profile, candidate.unit, candidate.term, !isTrue) };
  });
  return [...multipleChoice.map(({ unitId, question }) => ({ unitId, question: question() as GeneratedQuestion })), ...trueFalseQuestions]
    .sort((a, b) => focusFirst(text, a.unitId, b.unitId))
    .map(({ question }) => question);
}
