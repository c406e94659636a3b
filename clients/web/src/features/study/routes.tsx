import type { RouteObject } from "react-router";

/** The study pages (paths under the app's basename): material, studying a set, the due-review queue, quizzes, guides. */
export const studyRoutes: RouteObject[] = [
  { path: "study", lazy: async () => ({ Component: (await import("./study-page")).StudyPage }) },
  { path: "study/flashcards/:setId", lazy: async () => ({ Component: (await import("./flashcard-set-page")).FlashcardSetPage }) },
  { path: "study/flashcards/:setId/review", lazy: async () => ({ Component: (await import("./review-page")).SetReviewPage }) },
  { path: "review", lazy: async () => ({ Component: (await import("./review-page")).ReviewPage }) },
  { path: "study/quizzes/:quizId", lazy: async () => ({ Component: (await import("./quiz-page")).QuizPage }) },
  { path: "study/guides/:guideId", lazy: async () => ({ Component: (await import("./guide-page")).GuidePage }) },
];
