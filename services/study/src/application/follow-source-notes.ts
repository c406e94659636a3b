import type { FlashcardSet } from "../domain/flashcard-set";
import type { Quiz } from "../domain/quiz";
import type { StudyGuide } from "../domain/study-guide";
import type { MaterialChangeEvents, MaterialRepository, SourceNoteLinks } from "./ports/study-repositories.port";
import { flashcardSetDeleted, flashcardSetUpdated, quizDeleted, quizUpdated, studyGuideDeleted, studyGuideUpdated } from "./study-events";

/** What following a deleted course needs of each kind's repository. */
type CourseMaterial<M> = Pick<MaterialRepository<M>, "deleteCourse">;

/** A material that lost a source is announced as updated (search keeps its date and record current). */
const UPDATED: MaterialChangeEvents = {
  flashcardSet: (set) => [flashcardSetUpdated(set)],
  quiz: (quiz) => [quizUpdated(quiz)],
  studyGuide: (guide) => [studyGuideUpdated(guide)],
};

/**
 * Keeps material in step with the notes, documents and courses it came from. A deleted note's or document's
 * material stays (the user studied with it) but loses its links to it, and each such material is announced as
 * updated; a deleted course takes its material with it.
 */
export class FollowSourceNotes {
  constructor(
    private readonly links: SourceNoteLinks,
    private readonly repositories: { sets: CourseMaterial<FlashcardSet>; quizzes: CourseMaterial<Quiz>; guides: CourseMaterial<StudyGuide> },
  ) {}

  noteDeleted(userId: string, noteId: string): Promise<void> {
    return this.links.detachNote(userId, noteId, UPDATED);
  }

  noteRenamed(userId: string, noteId: string, title: string): Promise<void> {
    return this.links.renameNote(userId, noteId, title);
  }

  documentDeleted(userId: string, documentId: string): Promise<void> {
    return this.links.detachDocument(userId, documentId, UPDATED);
  }

  async courseDeleted(userId: string, courseId: string): Promise<{ flashcardSets: number; quizzes: number; studyGuides: number }> {
    const { sets, quizzes, guides } = this.repositories;
    const deletedSets: FlashcardSet[] = await sets.deleteCourse(userId, courseId, (set) => [flashcardSetDeleted(set)]);
    const deletedQuizzes: Quiz[] = await quizzes.deleteCourse(userId, courseId, (quiz) => [quizDeleted(quiz)]);
    const deletedGuides: StudyGuide[] = await guides.deleteCourse(userId, courseId, (guide) => [studyGuideDeleted(guide)]);
    return { flashcardSets: deletedSets.length, quizzes: deletedQuizzes.length, studyGuides: deletedGuides.length };
  }
}
