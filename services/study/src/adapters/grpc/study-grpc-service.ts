import type { ServerUnaryCall } from "@grpc/grpc-js";
import { study as api } from "@study/contracts";
import { bindUnaryHandlers } from "@study/grpc";
import type { Logger } from "@study/platform";
import { AppError } from "@study/platform/errors";
import type { ExportFlashcardSet } from "../../application/export-flashcard-set";
import type { GenerateFlashcards } from "../../application/generate-flashcards";
import type { GenerationOutcome } from "../../application/generate-once";
import type { GenerateQuiz } from "../../application/generate-quiz";
import type { GenerateStudyGuide } from "../../application/generate-study-guide";
import type { ListDueCards } from "../../application/list-due-cards";
import type { ExportFormat } from "../../application/ports/flashcard-exporter.port";
import type { MaterialCatalog } from "../../application/read-material";
import type { ReviewCard } from "../../application/review-card";
import type { ListQuizAttempts, SubmitQuizAnswers } from "../../application/submit-quiz-answers";
import type { CardState, ReviewRating } from "../../domain/card-schedule";
import type { Flashcard, FlashcardSet, MaterialOrigin } from "../../domain/flashcard-set";
import type { GenerationCommand } from "../../domain/generation-request";
import type { Quiz, QuizAttempt } from "../../domain/quiz";
import type { StudyGuide } from "../../domain/study-guide";
import type { Difficulty, SourceReference } from "../../domain/study-material";

export interface StudyUseCases {
  generateFlashcards: GenerateFlashcards;
  generateQuiz: GenerateQuiz;
  generateStudyGuide: GenerateStudyGuide;
  flashcardSets: MaterialCatalog<FlashcardSet>;
  quizzes: MaterialCatalog<Quiz>;
  studyGuides: MaterialCatalog<StudyGuide>;
  listDueCards: ListDueCards;
  reviewCard: ReviewCard;
  exportFlashcardSet: ExportFlashcardSet;
  submitQuizAnswers: SubmitQuizAnswers;
  listQuizAttempts: ListQuizAttempts;
}

const DIFFICULTY_FROM_PROTO: Record<number, Difficulty> = {
  [api.Difficulty.DIFFICULTY_UNSPECIFIED]: "MEDIUM",
  [api.Difficulty.DIFFICULTY_EASY]: "EASY",
  [api.Difficulty.DIFFICULTY_MEDIUM]: "MEDIUM",
  [api.Difficulty.DIFFICULTY_HARD]: "HARD",
};
const DIFFICULTY_TO_PROTO: Record<Difficulty, api.Difficulty> = {
  EASY: api.Difficulty.DIFFICULTY_EASY,
  MEDIUM: api.Difficulty.DIFFICULTY_MEDIUM,
  HARD: api.Difficulty.DIFFICULTY_HARD,
};
const CARD_STATE_TO_PROTO: Record<CardState, api.CardState> = {
  NEW: api.CardState.CARD_STATE_NEW,
  LEARNING: api.CardState.CARD_STATE_LEARNING,
  REVIEW: api.CardState.CARD_STATE_REVIEW,
  RELEARNING: api.CardState.CARD_STATE_RELEARNING,
};
const RATING_FROM_PROTO: Partial<Record<api.ReviewRating, ReviewRating>> = {
  [api.ReviewRating.REVIEW_RATING_AGAIN]: "again",
  [api.ReviewRating.REVIEW_RATING_HARD]: "hard",
  [api.ReviewRating.REVIEW_RATING_GOOD]: "good",
  [api.ReviewRating.REVIEW_RATING_EASY]: "easy",
};
const FORMAT_FROM_PROTO: Partial<Record<api.ExportFormat, ExportFormat>> = {
  [api.ExportFormat.EXPORT_FORMAT_CSV]: "csv",
  [api.ExportFormat.EXPORT_FORMAT_APKG]: "apkg",
};

function generationCommand(request: api.GenerationRequest | undefined): GenerationCommand {
  if (!request) throw AppError.validation("generation is required", [{ field: "generation", message: "is required" }]);
  const difficulty = DIFFICULTY_FROM_PROTO[request.difficulty];
  if (!difficulty) throw AppError.validation("Invalid generation request", [{ field: "difficulty", message: "must be EASY, MEDIUM or HARD" }]);
  return {
    userId: request.userId,
    courseId: request.courseId,
    noteIds: request.noteIds,
    documentIds: request.documentIds,
    focusAreas: request.focusAreas,
    difficulty,
  };
}

const documentTitles = (outcome: GenerationOutcome<unknown>): api.SourceTitle[] =>
  outcome.documents.map((document) => ({ id: document.documentId, title: document.title }));

/** Time kept between the generation's own give-up and the caller's deadline, for the answer to travel back. */
const DEADLINE_MARGIN_MS = 1_000;

/**
 * Aborted when the caller gives up (cancellation), so a long generation stops with it, and just before the
 * call's deadline: a model that is still writing then ends the call as UPSTREAM_TIMEOUT ("the AI service did
 * not answer in time") instead of the caller's bare deadline, and its request is not left running.
 */
export function callSignal(call: Pick<ServerUnaryCall<unknown, unknown>, "on" | "getDeadline">): AbortSignal {
  const controller = new AbortController();
  call.on("cancelled", () => controller.abort(new AppError("timeout", "GENERATION_CANCELLED", "The caller gave up waiting for the generation")));
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
  if (Number.isFinite(deadlineMs)) {
    // AbortSignal.timeout's timer does not hold the process and is collected with the signals once the call is
    // over; the call's own signal keeps it referenced until then.
    const nearDeadline = AbortSignal.timeout(Math.max(0, deadlineMs - Date.now() - DEADLINE_MARGIN_MS));
    nearDeadline.addEventListener("abort", () =>
      controller.abort(new AppError("timeout", "UPSTREAM_TIMEOUT", "The AI service did not answer in time")),
    );
    controller.signal.addEventListener("abort", () => nearDeadline.aborted);
  }
  return controller.signal;
}

const sourceLink = (source: SourceReference | null): api.SourceLink => ({
  noteId: source?.noteId ?? undefined,
  startTime: source?.startTime ?? undefined,
  documentId: source?.documentId ?? undefined,
  page: source?.page ?? undefined,
});

const origin = (material: MaterialOrigin) => ({
  id: material.id,
  userId: material.userId,
  courseId: material.courseId,
  noteId: material.noteId ?? undefined,
  noteTitle: material.noteTitle ?? undefined,
  noteIds: material.noteIds,
  title: material.title,
  description: material.description ?? undefined,
  difficulty: DIFFICULTY_TO_PROTO[material.difficulty],
  generator: material.generator,
  createdAt: material.createdAt,
  updatedAt: material.updatedAt,
});

export const toProtoFlashcard = (card: Flashcard): api.Flashcard => ({
  id: card.id,
  flashcardSetId: card.flashcardSetId,
  front: card.front,
  back: card.back,
  order: card.order,
  source: sourceLink(card.source),
  schedule: {
    state: CARD_STATE_TO_PROTO[card.schedule.state],
    due: card.schedule.due,
    stability: card.schedule.stability,
    difficulty: card.schedule.difficulty,
    scheduledDays: card.schedule.scheduledDays,
    reps: card.schedule.reps,
    lapses: card.schedule.lapses,
    lastReview: card.schedule.lastReview ?? undefined,
  },
});

const toProtoFlashcardSet = (set: FlashcardSet): api.FlashcardSet => ({
  ...origin(set),
  cardCount: set.flashcards.length,
  flashcards: set.flashcards.map(toProtoFlashcard),
});

const toProtoQuiz = (quiz: Quiz): api.Quiz => ({
  ...origin(quiz),
  questions: quiz.questions.map((question) => ({
    id: question.id,
    quizId: question.quizId,
    question: question.question,
    type: question.type,
    options: question.options,
    correctAnswer: question.correctAnswer,
    explanation: question.explanation ?? undefined,
    order: question.order,
    source: sourceLink(question.source),
  })),
});

const toProtoStudyGuide = (guide: StudyGuide): api.StudyGuide => ({
  ...origin(guide),
  markdown: guide.markdown,
  overview: guide.overview,
  keyTerms: guide.keyTerms,
  learningObjectives: guide.learningObjectives,
  studyTips: guide.studyTips,
  sections: guide.sections.map((section) => ({
    id: section.id,
    studyGuideId: section.studyGuideId,
    title: section.title,
    content: section.content,
    order: section.order,
    subsections: section.subsections,
    source: sourceLink(section.source),
  })),
});

const toProtoAttempt = (attempt: QuizAttempt): api.QuizAttempt => ({
  id: attempt.id,
  quizId: attempt.quizId,
  totalQuestions: attempt.totalQuestions,
  correctAnswers: attempt.correctAnswers,
  percentage: attempt.percentage,
  submittedAt: attempt.submittedAt,
  results: attempt.results.map((result) => ({
    questionId: result.questionId,
    userAnswer: result.userAnswer ?? undefined,
    correctAnswer: result.correctAnswer,
    isCorrect: result.isCorrect,
    explanation: result.explanation ?? undefined,
  })),
});

const filter = (request: { courseId?: string; noteId?: string; flashcardSetId?: string }) => ({
  courseId: request.courseId || undefined,
  noteId: request.noteId || undefined,
  flashcardSetId: request.flashcardSetId || undefined,
});

export function studyGrpcService(useCases: StudyUseCases, logger: Logger): api.StudyServiceServer {
  return bindUnaryHandlers(logger, api.StudyServiceService, {
    generateFlashcards: async (request, call) => {
      const outcome = await useCases.generateFlashcards.execute(
        { ...generationCommand(request.generation), cardCount: request.cardCount },
        callSignal(call),
      );
      return {
        flashcardSet: toProtoFlashcardSet(outcome.material),
        created: outcome.created,
        shortfall: outcome.shortfall ?? undefined,
        documents: documentTitles(outcome),
      };
    },
    listFlashcardSets: async (request) => ({
      flashcardSets: (await useCases.flashcardSets.list(request.userId, filter(request), request.limit)).map(toProtoFlashcardSet),
    }),
    getFlashcardSet: async (request) => ({
      flashcardSet: toProtoFlashcardSet(await useCases.flashcardSets.get(request.userId, request.flashcardSetId)),
    }),
    deleteFlashcardSet: async (request) => {
      await useCases.flashcardSets.delete(request.userId, request.flashcardSetId);
      return {};
    },
    listDueCards: async (request) => {
      const due = await useCases.listDueCards.execute(request.userId, { ...filter(request), limit: request.limit });
      return {
        totalDue: due.totalDue,
        cards: due.cards.map((entry) => ({
          flashcard: toProtoFlashcard(entry.flashcard),
          courseId: entry.courseId,
          flashcardSetTitle: entry.flashcardSetTitle,
          nextDueByRating: entry.nextDueByRating,
        })),
      };
    },
    reviewCard: async (request) => {
      const rating = RATING_FROM_PROTO[request.rating];
      if (!rating) throw AppError.validation("Invalid review", [{ field: "rating", message: "must be one of again, hard, good, easy" }]);
      const flashcard = await useCases.reviewCard.execute(request.userId, request.flashcardSetId, request.flashcardId, rating);
      return { flashcard: toProtoFlashcard(flashcard) };
    },
    exportFlashcardSet: async (request) => {
      const format = FORMAT_FROM_PROTO[request.format];
      if (!format) throw AppError.validation("Invalid export", [{ field: "format", message: "must be csv or apkg" }]);
      const file = await useCases.exportFlashcardSet.execute(request.userId, request.flashcardSetId, format, request.courseName);
      return { fileName: file.fileName, contentType: file.contentType, content: file.content };
    },
    generateQuiz: async (request, call) => {
      const outcome = await useCases.generateQuiz.execute(
        { ...generationCommand(request.generation), questionCount: request.questionCount },
        callSignal(call),
      );
      return {
        quiz: toProtoQuiz(outcome.material),
        created: outcome.created,
        shortfall: outcome.shortfall ?? undefined,
        documents: documentTitles(outcome),
      };
    },
    listQuizzes: async (request) => ({
      quizzes: (await useCases.quizzes.list(request.userId, filter(request), request.limit)).map(toProtoQuiz),
    }),
    getQuiz: async (request) => ({
      quiz: toProtoQuiz(await useCases.quizzes.get(request.userId, request.quizId)),
    }),
    deleteQuiz: async (request) => {
      await useCases.quizzes.delete(request.userId, request.quizId);
      return {};
    },
    submitQuizAnswers: async (request) => ({
      attempt: toProtoAttempt(await useCases.submitQuizAnswers.execute(request.userId, request.quizId, request.responses)),
    }),
    listQuizAttempts: async (request) => ({
      attempts: (await useCases.listQuizAttempts.execute(request.userId, request.quizId)).map(toProtoAttempt),
    }),
    generateStudyGuide: async (request, call) => {
      const outcome = await useCases.generateStudyGuide.execute(generationCommand(request.generation), callSignal(call));
      return { studyGuide: toProtoStudyGuide(outcome.material), created: outcome.created, documents: documentTitles(outcome) };
    },
    listStudyGuides: async (request) => ({
      studyGuides: (await useCases.studyGuides.list(request.userId, filter(request), request.limit)).map(toProtoStudyGuide),
    }),
    getStudyGuide: async (request) => ({
      studyGuide: toProtoStudyGuide(await useCases.studyGuides.get(request.userId, request.studyGuideId)),
    }),
    deleteStudyGuide: async (request) => {
      await useCases.studyGuides.delete(request.userId, request.studyGuideId);
      return {};
    },
  });
}
