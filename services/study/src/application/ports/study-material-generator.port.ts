import type { Difficulty, GeneratedFlashcardSet, GeneratedQuiz, GeneratedStudyGuide, SourceNote } from "../../domain/study-material";

/** What every generation reads: the course for context, the transcribed notes, the level asked for. */
export interface GenerationInput {
  courseName: string;
  /** At least one; in the order the user gave them. */
  notes: SourceNote[];
  difficulty: Difficulty;
}

/**
 * Turns notes into study material. Two adapters: an OpenAI-compatible model when a key is configured, and an
 * offline algorithmic generator (the default). Both return output that passes the domain's assertValid*
 * checks, or throw an AppError; `signal` aborts the work.
 */
export interface StudyMaterialGenerator {
  /** Which adapter answered, stored with the material ("offline" or "openai:<model>"). */
  readonly name: string;
  generateFlashcards(input: GenerationInput & { cardCount: number }, signal?: AbortSignal): Promise<GeneratedFlashcardSet>;
  generateQuiz(input: GenerationInput & { questionCount: number }, signal?: AbortSignal): Promise<GeneratedQuiz>;
  generateStudyGuide(input: GenerationInput, signal?: AbortSignal): Promise<GeneratedStudyGuide>;
}
