import type { PayloadOf } from "@study/events/envelope";
import type { FlashcardSet, MaterialOrigin } from "../domain/flashcard-set";
import type { Quiz } from "../domain/quiz";
import type { StudyGuide } from "../domain/study-guide";

/** The indexing contract's record (study.search.v1.Searchable), as the events and SearchableSourceService carry it. */
export type Searchable = NonNullable<PayloadOf<"flashcardSetCreated">["searchable"]>;

/*
 * study.search.v1.SearchableType's values. Use cases may not import @study/contracts (see .dependency-cruiser.cjs),
 * so these are the enum's wire numbers, which proto never changes: the type accepts only numbers of the enum, and
 * test/unit/searchable.test.ts pins each to its name.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_FLASHCARD_SET: Searchable["type"] = 2;
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_STUDY_GUIDE: Searchable["type"] = 3;
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_QUIZ: Searchable["type"] = 4;

/** What every kind of material shows search alike: title, description, difficulty, course, timestamps. */
function materialSearchable(material: MaterialOrigin, type: Searchable["type"], content: string, metadata: Record<string, string>): Searchable {
  return {
    type,
    id: material.id,
    userId: material.userId,
    courseId: material.courseId,
    title: material.title,
    keywords: [],
    description: material.description ?? "",
    content,
    difficulty: material.difficulty,
    metadata,
    createdAt: material.createdAt,
    updatedAt: material.updatedAt,
  };
}

const inOrder = <T extends { order: number }>(items: readonly T[]): T[] => [...items].sort((a, b) => a.order - b.order);

/** A flashcard set as search indexes it: every card as "front — back", one per line. */
export function flashcardSetToSearchable(set: FlashcardSet): Searchable {
  const content = inOrder(set.flashcards)
    .map((card) => `${card.front} — ${card.back}`)
    .join("\n");
  return materialSearchable(set, SEARCHABLE_TYPE_FLASHCARD_SET, content, { cardCount: String(set.flashcards.length) });
}

/** A quiz as search indexes it: every question followed by its options, one per line. */
export function quizToSearchable(quiz: Quiz): Searchable {
  const content = inOrder(quiz.questions)
    .flatMap((question) => [question.question, ...question.options])
    .join("\n");
  return materialSearchable(quiz, SEARCHABLE_TYPE_QUIZ, content, { questionCount: String(quiz.questions.length) });
}

/** A study guide as search indexes it: its whole content (the markdown). */
export function studyGuideToSearchable(guide: StudyGuide): Searchable {
  return materialSearchable(guide, SEARCHABLE_TYPE_STUDY_GUIDE, guide.markdown, { sectionCount: String(guide.sections.length) });
}
