import type { Schema } from "@study/sdk";
import { api, data } from "../../lib/api";

/** The study material's shapes as the API answers them. */
export type FlashcardSet = Schema<"FlashcardSet">;
export type Flashcard = Schema<"Flashcard">;
export type Quiz = Schema<"Quiz">;
export type Question = Schema<"Question">;
export type QuizScore = Schema<"QuizScore">;
export type StudyGuide = Schema<"StudyGuide">;
export type StudyGuideDetail = Schema<"StudyGuideDetail">;
export type SourceLink = Schema<"SourceLink">;
export type Note = Schema<"Note">;
export type Difficulty = FlashcardSet["difficulty"];

/** Query keys of the study pages: everything under ["study"] is study material (invalidated after changes). */
export const studyKeys = {
  all: ["study"] as const,
  flashcardSets: ["study", "flashcards"] as const,
  flashcardSet: (id: string) => ["study", "flashcards", id] as const,
  quizzes: ["study", "quizzes"] as const,
  quiz: (id: string) => ["study", "quizzes", id] as const,
  attempts: (id: string) => ["study", "quizzes", id, "attempts"] as const,
  guides: ["study", "guides"] as const,
  guide: (id: string) => ["study", "guides", id] as const,
  due: (flashcardSetId?: string) => ["study", "due", flashcardSetId ?? "all"] as const,
};

export const fetchFlashcardSets = () => data(api.GET("/api/flashcards"));
export const fetchFlashcardSet = (id: string) => data(api.GET("/api/flashcards/{id}", { params: { path: { id } } }));
export const fetchQuizzes = () => data(api.GET("/api/quizzes"));
export const fetchQuiz = (id: string) => data(api.GET("/api/quizzes/{id}", { params: { path: { id } } }));
export const fetchAttempts = (id: string) => data(api.GET("/api/quizzes/{id}/attempts", { params: { path: { id } } }));
export const fetchGuides = () => data(api.GET("/api/study-guides"));

/** Shape A with its sections (the default shape of GET /api/study-guides/{id}). */
export async function fetchGuide(id: string): Promise<StudyGuideDetail> {
  const guide = await data(api.GET("/api/study-guides/{id}", { params: { path: { id }, query: { shape: "markdown" } } }));
  if (typeof guide.content !== "string") throw new Error("The study guide came without its Markdown.");
  return guide as StudyGuideDetail;
}

/** The cards due now (of one set, or of every set), soonest first, with the next due date each rating would give. */
export const fetchDue = (flashcardSetId?: string) =>
  data(api.GET("/api/flashcards/review/due", { params: { query: { limit: 100, ...(flashcardSetId ? { flashcardSetId } : {}) } } }));

export type DueCards = Awaited<ReturnType<typeof fetchDue>>;
export type DueCard = DueCards["cards"][number];
export type Rating = keyof DueCard["nextDueByRating"];

export const reviewCard = (card: { flashcardSetId: string; id: string }, rating: Rating) =>
  data(
    api.POST("/api/flashcards/{setId}/cards/{cardId}/review", {
      params: { path: { setId: card.flashcardSetId, cardId: card.id } },
      body: { rating },
    }),
  );

export const fetchCourses = () => data(api.GET("/api/courses", { params: { query: { limit: 100 } } }));
export const fetchCourseNotes = (courseId: string) => data(api.GET("/api/courses/{courseId}/notes", { params: { path: { courseId } } }));
export const fetchNotes = () => data(api.GET("/api/notes"));

export const DIFFICULTY_LABEL: Record<Difficulty, string> = { EASY: "Easy", MEDIUM: "Medium", HARD: "Hard" };
