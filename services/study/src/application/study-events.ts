import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { FlashcardSet } from "../domain/flashcard-set";
import type { Quiz } from "../domain/quiz";
import type { StudyGuide } from "../domain/study-guide";
import { flashcardSetToSearchable, quizToSearchable, studyGuideToSearchable } from "./searchable";

export const SOURCE = "study";

export const flashcardSetCreated = (set: FlashcardSet): EventEnvelope =>
  createEvent(SOURCE, set.userId, {
    $case: "flashcardSetCreated",
    value: {
      flashcardSetId: set.id,
      courseId: set.courseId,
      noteIds: set.noteIds,
      title: set.title,
      description: set.description ?? "",
      difficulty: set.difficulty,
      cardCount: set.flashcards.length,
      cardTexts: set.flashcards.map((card) => `${card.front} — ${card.back}`),
      searchable: flashcardSetToSearchable(set),
    },
  });

export const flashcardSetDeleted = (set: FlashcardSet): EventEnvelope =>
  createEvent(SOURCE, set.userId, { $case: "flashcardSetDeleted", value: { flashcardSetId: set.id, courseId: set.courseId } });

export const quizCreated = (quiz: Quiz): EventEnvelope =>
  createEvent(SOURCE, quiz.userId, {
    $case: "quizCreated",
    value: {
      quizId: quiz.id,
      courseId: quiz.courseId,
      noteIds: quiz.noteIds,
      title: quiz.title,
      description: quiz.description ?? "",
      difficulty: quiz.difficulty,
      questionCount: quiz.questions.length,
      questionTexts: quiz.questions.map((question) => question.question),
      searchable: quizToSearchable(quiz),
    },
  });

export const quizDeleted = (quiz: Quiz): EventEnvelope =>
  createEvent(SOURCE, quiz.userId, { $case: "quizDeleted", value: { quizId: quiz.id, courseId: quiz.courseId } });

export const studyGuideCreated = (guide: StudyGuide): EventEnvelope =>
  createEvent(SOURCE, guide.userId, {
    $case: "studyGuideCreated",
    value: {
      studyGuideId: guide.id,
      courseId: guide.courseId,
      noteIds: guide.noteIds,
      title: guide.title,
      description: guide.description ?? "",
      difficulty: guide.difficulty,
      sectionCount: guide.sections.length,
      content: guide.markdown,
      searchable: studyGuideToSearchable(guide),
    },
  });

export const studyGuideDeleted = (guide: StudyGuide): EventEnvelope =>
  createEvent(SOURCE, guide.userId, { $case: "studyGuideDeleted", value: { studyGuideId: guide.id, courseId: guide.courseId } });

/*
 * Updated events: the material changed without being made again (a source note or document was deleted, so it lost
 * its link to it and its updatedAt moved). They carry the record as search indexes it now, so search keeps the
 * material's date and text current.
 */
export const flashcardSetUpdated = (set: FlashcardSet): EventEnvelope =>
  createEvent(SOURCE, set.userId, {
    $case: "flashcardSetUpdated",
    value: { flashcardSetId: set.id, courseId: set.courseId, noteIds: set.noteIds, searchable: flashcardSetToSearchable(set) },
  });

export const quizUpdated = (quiz: Quiz): EventEnvelope =>
  createEvent(SOURCE, quiz.userId, {
    $case: "quizUpdated",
    value: { quizId: quiz.id, courseId: quiz.courseId, noteIds: quiz.noteIds, searchable: quizToSearchable(quiz) },
  });

export const studyGuideUpdated = (guide: StudyGuide): EventEnvelope =>
  createEvent(SOURCE, guide.userId, {
    $case: "studyGuideUpdated",
    value: { studyGuideId: guide.id, courseId: guide.courseId, noteIds: guide.noteIds, searchable: studyGuideToSearchable(guide) },
  });
