import { FollowSourceNotes } from "../../src/application/follow-source-notes";
import type { EventEnvelope } from "@study/events/envelope";
import type { MaterialChangeEvents, MaterialRepository, SourceNoteLinks } from "../../src/application/ports/study-repositories.port";
import { newCardSchedule } from "../../src/domain/card-scheduler";
import type { FlashcardSet, MaterialOrigin } from "../../src/domain/flashcard-set";
import type { Quiz } from "../../src/domain/quiz";
import type { StudyGuide } from "../../src/domain/study-guide";
import type { SourceReference } from "../../src/domain/study-material";

const OWNER = "0190a5f4-0000-7000-8000-0000000000aa";
const OTHER_USER = "0190a5f4-0000-7000-8000-0000000000ab";
const COURSE = "0190a5f4-0000-7000-8000-0000000000cc";
const DELETED = "0190a5f4-0000-7000-8000-0000000000d1";
const KEPT = "0190a5f4-0000-7000-8000-0000000000d2";
const NOTE = "0190a5f4-0000-7000-8000-0000000000e1";
const CREATED = new Date("2026-11-20T10:00:00Z");

/**
 * The three kinds of material in memory, linked to their sources as the Prisma adapter links them: a material
 * lists its notes and documents, each item names at most one source.
 */
class MemoryMaterial implements SourceNoteLinks {
  readonly sets: FlashcardSet[] = [];
  readonly quizzes: Quiz[] = [];
  readonly guides: StudyGuide[] = [];
  /** The events the adapter would have written to the outbox with each change. */
  readonly announced: EventEnvelope[] = [];

  private announce(material: MaterialOrigin, events: MaterialChangeEvents): void {
    const set = this.sets.find((candidate) => candidate === material);
    const quiz = this.quizzes.find((candidate) => candidate === material);
    const guide = this.guides.find((candidate) => candidate === material);
    if (set) this.announced.push(...events.flashcardSet(set));
    if (quiz) this.announced.push(...events.quiz(quiz));
    if (guide) this.announced.push(...events.studyGuide(guide));
  }

  private owned(userId: string): { material: MaterialOrigin; items: { source: SourceReference | null }[] }[] {
    return [
      ...this.sets.map((set) => ({ material: set, items: set.flashcards })),
      ...this.quizzes.map((quiz) => ({ material: quiz, items: quiz.questions })),
      ...this.guides.map((guide) => ({ material: guide, items: guide.sections })),
    ].filter(({ material }) => material.userId === userId);
  }

  detachNote(userId: string, noteId: string, events: MaterialChangeEvents): Promise<void> {
    for (const { material, items } of this.owned(userId).filter(({ material }) => material.noteIds.includes(noteId))) {
      for (const item of items) if (item.source?.noteId === noteId) item.source = null;
      material.noteIds = material.noteIds.filter((id) => id !== noteId);
      if (material.noteId === noteId) Object.assign(material, { noteId: null, noteTitle: null });
      material.updatedAt = new Date();
      this.announce(material, events);
    }
    return Promise.resolve();
  }

  renameNote(userId: string, noteId: string, title: string): Promise<void> {
    for (const { material } of this.owned(userId)) if (material.noteId === noteId) material.noteTitle = title;
    return Promise.resolve();
  }

  detachDocument(userId: string, documentId: string, events: MaterialChangeEvents): Promise<void> {
    for (const { material, items } of this.owned(userId).filter(({ material }) => material.documentIds.includes(documentId))) {
      for (const item of items) if (item.source?.documentId === documentId) item.source = null;
      material.documentIds = material.documentIds.filter((id) => id !== documentId);
      material.updatedAt = new Date();
      this.announce(material, events);
    }
    return Promise.resolve();
  }

  courseRepository<M extends MaterialOrigin>(list: M[]): Pick<MaterialRepository<M>, "deleteCourse"> {
    return {
      deleteCourse: (userId, courseId) => {
        const deleted = list.filter((material) => material.userId === userId && material.courseId === courseId);
        list.splice(0, list.length, ...list.filter((material) => !deleted.includes(material)));
        return Promise.resolve(deleted);
      },
    };
  }
}

function origin(id: string, userId: string, sources: { noteIds?: string[]; documentIds?: string[] }): MaterialOrigin {
  const noteIds = sources.noteIds ?? [];
  return {
    id,
    userId,
    courseId: COURSE,
    noteId: noteIds[0] ?? null,
    noteTitle: noteIds.length ? "Membrane transport" : null,
    noteIds,
    documentIds: sources.documentIds ?? [],
    contentHash: `hash-${id}`,
    title: `Material ${id}`,
    description: null,
    difficulty: "MEDIUM",
    generator: "offline",
    createdAt: CREATED,
    updatedAt: CREATED,
  };
}

const page = (documentId: string, number: number | null): SourceReference => ({ documentId, page: number });

function flashcardSet(id: string, userId: string, sources: (SourceReference | null)[], documentIds: string[], noteIds: string[] = []): FlashcardSet {
  return {
    ...origin(id, userId, { noteIds, documentIds }),
    flashcards: sources.map((source, order) => ({
      id: `${id}-card-${order}`,
      flashcardSetId: id,
      front: `Front ${order}`,
      back: `Back ${order}`,
      order,
      source,
      schedule: newCardSchedule(CREATED),
    })),
  };
}

function quiz(id: string, userId: string, sources: (SourceReference | null)[], documentIds: string[]): Quiz {
  return {
    ...origin(id, userId, { documentIds }),
    questions: sources.map((source, order) => ({
      id: `${id}-question-${order}`,
      quizId: id,
      question: `Question ${order}?`,
      type: "true_false",
      options: ["True", "False"],
      correctAnswer: "True",
      explanation: null,
      order,
      source,
    })),
  };
}

function studyGuide(id: string, userId: string, sources: (SourceReference | null)[], documentIds: string[], noteIds: string[] = []): StudyGuide {
  return {
    ...origin(id, userId, { noteIds, documentIds }),
    markdown: `# Material ${id}`,
    overview: "Overview",
    keyTerms: [],
    learningObjectives: [],
    studyTips: [],
    sections: sources.map((source, order) => ({
      id: `${id}-section-${order}`,
      studyGuideId: id,
      title: `Section ${order}`,
      content: "Content",
      order,
      subsections: [],
      source,
    })),
  };
}

/** The owner's material from two documents and a note, and another user's from the same document id. */
function setUp() {
  const memory = new MemoryMaterial();
  memory.sets.push(
    flashcardSet("set", OWNER, [page(DELETED, 1), page(KEPT, 2), page(DELETED, null), null], [DELETED, KEPT]),
    flashcardSet("other-users-set", OTHER_USER, [page(DELETED, 3)], [DELETED]),
  );
  memory.quizzes.push(quiz("quiz", OWNER, [page(DELETED, 2), page(DELETED, 4)], [DELETED]));
  memory.guides.push(studyGuide("guide", OWNER, [{ noteId: NOTE, startTime: 12 }, page(DELETED, 1)], [DELETED], [NOTE]));
  const follow = new FollowSourceNotes(memory, {
    sets: memory.courseRepository(memory.sets),
    quizzes: memory.courseRepository(memory.quizzes),
    guides: memory.courseRepository(memory.guides),
  });
  return { memory, follow };
}

const sourcesOf = (items: { source: SourceReference | null }[]) => items.map((item) => item.source);

describe("FollowSourceNotes: a deleted document", () => {
  it("clears the document's links on the owner's cards, questions and sections, and keeps the material", async () => {
    const { memory, follow } = setUp();

    await follow.documentDeleted(OWNER, DELETED);

    const [set] = memory.sets;
    expect(sourcesOf(set.flashcards)).toEqual([null, page(KEPT, 2), null, null]);
    expect(set.documentIds).toEqual([KEPT]);
    expect(sourcesOf(memory.quizzes[0].questions)).toEqual([null, null]);
    expect(memory.quizzes[0].documentIds).toEqual([]);
    // The note's link and the note list are another source's: they stay.
    expect(sourcesOf(memory.guides[0].sections)).toEqual([{ noteId: NOTE, startTime: 12 }, null]);
    expect(memory.guides[0]).toMatchObject({ documentIds: [], noteIds: [NOTE], noteId: NOTE });
    expect([memory.sets.length, memory.quizzes.length, memory.guides.length]).toEqual([2, 1, 1]);
    expect([set.flashcards.length, memory.quizzes[0].questions.length, memory.guides[0].sections.length]).toEqual([4, 2, 2]);
  });

  it("leaves another user's material from the same document alone", async () => {
    const { memory, follow } = setUp();

    await follow.documentDeleted(OWNER, DELETED);

    const others = memory.sets.find((set) => set.userId === OTHER_USER);
    expect(others).toMatchObject({ documentIds: [DELETED], updatedAt: CREATED });
    expect(sourcesOf(others?.flashcards ?? [])).toEqual([page(DELETED, 3)]);
  });

  it("announces each of the owner's changed materials as updated, with its new date for search (#29)", async () => {
    const { memory, follow } = setUp();

    await follow.documentDeleted(OWNER, DELETED);

    const updated = memory.announced.map((event) => ({
      type: event.type,
      userId: event.userId,
      searchable: event.payload && "searchable" in event.payload.value ? event.payload.value.searchable : undefined,
    }));
    expect(updated.map(({ type, userId, searchable }) => [type, userId, searchable?.id])).toEqual([
      ["study.flashcard_set.updated.v1", OWNER, "set"],
      ["study.quiz.updated.v1", OWNER, "quiz"],
      ["study.study_guide.updated.v1", OWNER, "guide"],
    ]);
    for (const { searchable } of updated) expect(searchable?.updatedAt?.getTime()).toBeGreaterThan(CREATED.getTime());

    await follow.noteDeleted(OWNER, NOTE);
    expect(memory.announced.map((event) => event.type).slice(3)).toEqual(["study.study_guide.updated.v1"]);
  });

  it("changes nothing more when the event comes again", async () => {
    const { memory, follow } = setUp();
    await follow.documentDeleted(OWNER, DELETED);
    const afterFirst = structuredClone({ sets: memory.sets, quizzes: memory.quizzes, guides: memory.guides });

    const announcedBefore = memory.announced.length;
    await follow.documentDeleted(OWNER, DELETED);

    expect({ sets: memory.sets, quizzes: memory.quizzes, guides: memory.guides }).toEqual(afterFirst);
    expect(memory.announced.length).toBe(announcedBefore);
  });

  it("is a different source from a note: a deleted note leaves the document's links", async () => {
    const { memory, follow } = setUp();

    await follow.noteDeleted(OWNER, NOTE);

    expect(sourcesOf(memory.guides[0].sections)).toEqual([null, page(DELETED, 1)]);
    expect(memory.guides[0]).toMatchObject({ documentIds: [DELETED], noteIds: [], noteId: null });
  });
});
