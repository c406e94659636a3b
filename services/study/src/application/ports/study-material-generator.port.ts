import type { Difficulty, GeneratedFlashcardSet, GeneratedQuiz, GeneratedStudyGuide, SourceDocument, SourceNote } from "../../domain/study-material";

/** What every generation reads: the course for context, the transcribed notes and the documents, the level asked for. */
export interface GenerationInput {
  courseName: string;
  /** In the order the user gave them; at least one note or one document in all. */
  notes: SourceNote[];
  /** Processed documents, each with its pages' text; absent means none. Items link to the page they came from. */
  documents?: SourceDocument[];
  /** Topics to favour: material about passages that mention them comes first. Absent means none. */
  focusAreas?: string[];
  difficulty: Difficulty;
}

/**
 * Turns notes and documents into study material. Two adapters: an OpenAI-compatible model when a key is
 * configured, and an offline algorithmic generator (the default). Both return output that passes the domain's assertValid*
 * checks, or throw an AppError; `signal` aborts the work.
 */
export interface StudyMaterialGenerator {
  /** Which adapter answered, stored with the material ("offline" or "openai:<model>"). */
  readonly name: string;
  generateFlashcards(input: GenerationInput & { cardCount: number }, signal?: AbortSignal): Promise<GeneratedFlashcardSet>;
  generateQuiz(input: GenerationInput & { questionCount: number }, signal?: AbortSignal): Promise<GeneratedQuiz>;
  generateStudyGuide(input: GenerationInput, signal?: AbortSignal): Promise<GeneratedStudyGuide>;
}
