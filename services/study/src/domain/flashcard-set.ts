import type { CardSchedule } from "./card-schedule";
import type { Difficulty, SourceReference } from "./study-material";

export interface Flashcard {
  id: string;
  flashcardSetId: string;
  front: string;
  back: string;
  order: number;
  source: SourceReference | null;
  schedule: CardSchedule;
}

/** What every piece of generated material records about its origin. */
export interface MaterialOrigin {
  id: string;
  userId: string;
  courseId: string;
  /** The first source note; null once that note was deleted. */
  noteId: string | null;
  noteTitle: string | null;
  /** Every source note that still exists. */
  noteIds: string[];
  /** Every source document that still exists. */
  documentIds: string[];
  /** The deduplication key (see generation-fingerprint.ts). */
  contentHash: string;
  title: string;
  description: string | null;
  difficulty: Difficulty;
  /** The adapter that generated it: offline or openai:<model>. */
  generator: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface FlashcardSet extends MaterialOrigin {
  flashcards: Flashcard[];
}
