import { createHash } from "node:crypto";
import { AppError } from "@study/platform/errors";
import type { GenerationInput, StudyMaterialGenerator } from "../../../application/ports/study-material-generator.port";
import {
  assertValidFlashcardSet,
  assertValidQuiz,
  assertValidStudyGuide,
  MAX_FLASHCARD_COUNT,
  MAX_QUESTION_COUNT,
  type GeneratedFlashcardSet,
  type GeneratedQuiz,
  type GeneratedStudyGuide,
} from "../../../domain/study-material";
import { analyseNotes, checkpoint, type StudyText } from "./analysis";
import { difficultyProfile } from "./difficulty-profile";
import { buildFlashcards, type FlashcardKind } from "./flashcards";
import { listInProse } from "./prose";
import { buildQuiz } from "./quiz";
import { buildStudyGuide } from "./study-guide";

const COVERED_TERMS = 4;

/** What the material is named after: the note or document when there is one source, else the course. */
function materialTitle(input: GenerationInput): string {
  const titles = [...input.notes.map((note) => note.title), ...(input.documents ?? []).map((document) => document.title)];
  const sourceTitle = titles.length === 1 ? titles[0].trim() : "";
  return sourceTitle || input.courseName.trim() || titles[0]?.trim() || "Notes";
}

/**
 * How many analyses a generator keeps. A student asks for flashcards, a quiz and a study guide of the same notes one
 * after another (the web app offers the three side by side): the analysis, most of the work (tagging above all), is
 * made once for them. An hour of lecture analysed is a few megabytes.
 */
const KEPT_ANALYSES = 4;

/** What the analysis reads of a request: notes, documents and focus areas (not the count or the difficulty). */
function analysisKey(input: GenerationInput): string {
  return createHash("sha256")
    .update(JSON.stringify([input.notes, input.documents ?? [], input.focusAreas ?? []]))
    .digest("base64");
}

const clampCount = (count: number, max: number) => Math.min(max, Math.max(1, Math.floor(count) || 1));

const plural = (count: number, singular: string, several = `${singular}s`) => `${count} ${count === 1 ? singular : several}`;

function coveredTerms(text: StudyText): string {
  return listInProse(text.terms.slice(0, COVERED_TERMS).map((term) => term.inProse));
}

/** Why a set is short: each stated fact is asked about once, and the notes ran out of them. */
const fewerFacts = (made: number, item: string) =>
  `the notes state ${plural(made, "distinct fact")} to ask about, and no fact is asked twice (one ${item} each)`;

/** Nothing usable came out although the text passed the length check (e.g. no sentence holds a key term). */
function nothingToAsk(what: string): AppError {
  return new AppError("precondition", "NOT_ENOUGH_CONTENT", `The notes do not hold enough stated facts to generate ${what} from`);
}

/**
 * The default generator: no AI model, deterministic NLP over the notes' transcripts and text notes and the
 * documents' pages (sentence units mapped to transcript segments or pages, compromise noun phrases ranked as key
 * terms, definition patterns, TextTiling topic blocks; sentences on a focus area ranked first). Same input, same output.
 */
export class OfflineStudyMaterialGenerator implements StudyMaterialGenerator {
  readonly name = "offline";
  /** The last analyses made, least recently used first. Read only: the builders derive, never change, a StudyText. */
  private readonly analyses = new Map<string, StudyText>();

  /** `analyseSources`: the analysis (tests count its calls). */
  constructor(private readonly analyseSources: typeof analyseNotes = analyseNotes) {}

  /** The notes and documents analysed, with the focus areas marked; a recent analysis of the same sources is reused. */
  private async analyse(input: GenerationInput, signal?: AbortSignal): Promise<StudyText> {
    const key = analysisKey(input);
    const kept = this.analyses.get(key);
    if (kept) {
      signal?.throwIfAborted();
      this.analyses.delete(key);
      this.analyses.set(key, kept);
      return kept;
    }
    const text = await this.analyseSources(input.notes, signal, { documents: input.documents, focusAreas: input.focusAreas });
    this.analyses.set(key, text);
    for (const oldest of this.analyses.keys()) {
      if (this.analyses.size <= KEPT_ANALYSES) break;
      this.analyses.delete(oldest);
    }
    return text;
  }

  async generateFlashcards(input: GenerationInput & { cardCount: number }, signal?: AbortSignal): Promise<GeneratedFlashcardSet> {
    const text = await this.analyse(input, signal);
    const requested = clampCount(input.cardCount, MAX_FLASHCARD_COUNT);
    const cards = buildFlashcards(text, difficultyProfile(input.difficulty), requested);
    await checkpoint(signal);
    if (!cards.length) throw nothingToAsk("flashcards");
    const count = (kind: FlashcardKind) => cards.filter((card) => card.kind === kind).length;
    const kinds = [plural(count("definition"), "definition"), `${count("cloze")} fill-in-the-blank`];
    const madeKinds = listInProse(kinds.filter((kind) => !kind.startsWith("0 ")));
    const set: GeneratedFlashcardSet = {
      title: `${materialTitle(input)} — Flashcards`,
      description: `${plural(cards.length, "card")} on ${coveredTerms(text)}: ${madeKinds} (${input.difficulty.toLowerCase()} level).`,
      cards: cards.map(({ card }) => card),
      ...(cards.length < requested ? { shortfallReason: fewerFacts(cards.length, "card") } : {}),
    };
    assertValidFlashcardSet(set);
    return set;
  }

  async generateQuiz(input: GenerationInput & { questionCount: number }, signal?: AbortSignal): Promise<GeneratedQuiz> {
    const text = await this.analyse(input, signal);
    const requested = clampCount(input.questionCount, MAX_QUESTION_COUNT);
    const questions = buildQuiz(text, difficultyProfile(input.difficulty), requested);
    await checkpoint(signal);
    if (!questions.length) throw nothingToAsk("a quiz");
    const multipleChoice = questions.filter((question) => question.type === "multiple_choice").length;
    const quiz: GeneratedQuiz = {
      title: `${materialTitle(input)} — Quiz`,
      description:
        `${plural(questions.length, "question")} on ${coveredTerms(text)}: ${multipleChoice} multiple choice, ` +
        `${questions.length - multipleChoice} true/false (${input.difficulty.toLowerCase()} level).`,
      questions,
      ...(questions.length < requested ? { shortfallReason: fewerFacts(questions.length, "question") } : {}),
    };
    assertValidQuiz(quiz);
    return quiz;
  }

  async generateStudyGuide(input: GenerationInput, signal?: AbortSignal): Promise<GeneratedStudyGuide> {
    const text = await this.analyse(input, signal);
    const guide = buildStudyGuide(text, difficultyProfile(input.difficulty), materialTitle(input), input.notes, input.documents);
    await checkpoint(signal);
    assertValidStudyGuide(guide);
    return guide;
  }
}
