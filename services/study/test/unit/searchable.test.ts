import { indexing } from "@study/contracts";
import type { EventEnvelope } from "@study/events/envelope";
import { OfflineStudyMaterialGenerator } from "../../src/adapters/generation/offline/offline-study-material-generator";
import { GenerateFlashcards } from "../../src/application/generate-flashcards";
import { GenerateQuiz } from "../../src/application/generate-quiz";
import { GenerateStudyGuide } from "../../src/application/generate-study-guide";
import { ListSearchables } from "../../src/application/list-searchables";
import type { CardRepository } from "../../src/application/ports/study-repositories.port";
import {
  flashcardSetToSearchable,
  quizToSearchable,
  SEARCHABLE_TYPE_FLASHCARD_SET,
  SEARCHABLE_TYPE_QUIZ,
  SEARCHABLE_TYPE_STUDY_GUIDE,
  studyGuideToSearchable,
} from "../../src/application/searchable";
import { DEFAULT_SEARCHABLE_PAGE_SIZE, encodeTablePageToken } from "@study/platform/searchable-page";
import { newCardSchedule } from "../../src/domain/card-scheduler";
import type { FlashcardSet, MaterialOrigin } from "../../src/domain/flashcard-set";
import type { GenerationCommand } from "../../src/domain/generation-request";
import type { Quiz } from "../../src/domain/quiz";
import type { StudyGuide } from "../../src/domain/study-guide";
import { lectureNote } from "../adapters/generation/offline/fixtures/notes";
import { MemoryMaterials } from "./memory-materials";
import { MemoryOwners } from "./memory-owners";
import { refusal } from "@study/testkit/refusal";

const createdAt = new Date("2026-04-01T10:00:00Z");
const origin = (id: string, userId = "alice"): MaterialOrigin => ({
  id,
  userId,
  courseId: "0190a5f4-0000-7000-8000-0000000000cc",
  noteId: "0190a5f4-0000-7000-8000-0000000000dd",
  noteTitle: "Membranes",
  noteIds: ["0190a5f4-0000-7000-8000-0000000000dd"],
  contentHash: `hash-${id}`,
  title: "Membrane transport",
  description: "Diffusion and osmosis",
  difficulty: "HARD",
  generator: "offline",
  createdAt,
  updatedAt: createdAt,
});

const SET_ID = "0190a5f4-0000-7000-8000-000000000001";
const set: FlashcardSet = {
  ...origin(SET_ID),
  flashcards: [
    { id: "c2", flashcardSetId: SET_ID, front: "Osmosis", back: "Diffusion of water", order: 1, source: null, schedule: newCardSchedule(createdAt) },
    {
      id: "c1",
      flashcardSetId: SET_ID,
      front: "Diffusion",
      back: "High to low concentration",
      order: 0,
      source: null,
      schedule: newCardSchedule(createdAt),
    },
  ],
};
const QUIZ_ID = "0190a5f4-0000-7000-8000-000000000002";
const quiz: Quiz = {
  ...origin(QUIZ_ID),
  description: null,
  difficulty: "EASY",
  questions: [
    {
      id: "q1",
      quizId: QUIZ_ID,
      question: "Osmosis moves water.",
      type: "true_false",
      options: ["True", "False"],
      correctAnswer: "True",
      explanation: null,
      order: 0,
      source: null,
    },
    {
      id: "q2",
      quizId: QUIZ_ID,
      question: "Which uses ATP?",
      type: "multiple_choice",
      options: ["Diffusion", "Osmosis", "Active transport", "Facilitated diffusion"],
      correctAnswer: "Active transport",
      explanation: "Against the gradient.",
      order: 1,
      source: null,
    },
  ],
};
const GUIDE_ID = "0190a5f4-0000-7000-8000-000000000003";
const guide: StudyGuide = {
  ...origin(GUIDE_ID),
  markdown: "# Membrane transport\n\n## Overview\n\nHow substances cross.\n",
  overview: "How substances cross.",
  keyTerms: [],
  learningObjectives: [],
  studyTips: [],
  sections: [{ id: "s1", studyGuideId: GUIDE_ID, title: "Diffusion", content: "High to low.", order: 0, subsections: [], source: null }],
};

const searchableOf = (event: EventEnvelope) => (event.payload?.value as { searchable?: indexing.Searchable }).searchable;

describe("study material as search indexes it", () => {
  it("uses the contract's types", () => {
    expect(SEARCHABLE_TYPE_FLASHCARD_SET).toBe(indexing.SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET);
    expect(SEARCHABLE_TYPE_QUIZ).toBe(indexing.SearchableType.SEARCHABLE_TYPE_QUIZ);
    expect(SEARCHABLE_TYPE_STUDY_GUIDE).toBe(indexing.SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE);
  });

  it("a flashcard set: every card as “front — back” in order, the difficulty, the card count", () => {
    expect(flashcardSetToSearchable(set)).toEqual({
      type: indexing.SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
      id: SET_ID,
      userId: "alice",
      courseId: set.courseId,
      title: "Membrane transport",
      keywords: [],
      description: "Diffusion and osmosis",
      content: "Diffusion — High to low concentration\nOsmosis — Diffusion of water",
      difficulty: "HARD",
      metadata: { cardCount: "2" },
      createdAt,
      updatedAt: createdAt,
    });
  });

  it("a quiz: every question with its options, the question count; no description is an empty one", () => {
    expect(quizToSearchable(quiz)).toMatchObject({
      type: indexing.SearchableType.SEARCHABLE_TYPE_QUIZ,
      id: QUIZ_ID,
      description: "",
      content: "Osmosis moves water.\nTrue\nFalse\nWhich uses ATP?\nDiffusion\nOsmosis\nActive transport\nFacilitated diffusion",
      difficulty: "EASY",
      metadata: { questionCount: "2" },
    });
    expect(quizToSearchable(quiz).status).toBeUndefined();
  });

  it("a study guide: its content, the section count", () => {
    expect(studyGuideToSearchable(guide)).toMatchObject({
      type: indexing.SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE,
      id: GUIDE_ID,
      content: guide.markdown,
      difficulty: "HARD",
      metadata: { sectionCount: "1" },
    });
  });

  it("survives the wire unchanged", () => {
    for (const searchable of [flashcardSetToSearchable(set), quizToSearchable(quiz), studyGuideToSearchable(guide)]) {
      expect(indexing.Searchable.decode(indexing.Searchable.encode(searchable).finish())).toEqual(searchable);
    }
  });
});

const noCards: CardRepository = {
  findCard: async () => null,
  recordReview: async () => {
    throw new Error("not used");
  },
  listDue: async () => ({ cards: [], totalDue: 0 }),
};

describe("the Created events carry the new material's searchable", () => {
  const courseId = "0190a5f4-0000-7000-8000-0000000000cc";
  const noteId = "0190a5f4-0000-7000-8000-0000000000dd";
  const request: GenerationCommand = { userId: "alice", courseId, noteIds: [noteId], documentIds: [], difficulty: "MEDIUM" };
  const owners = new MemoryOwners()
    .addCourse("alice", courseId, "Biology")
    .addNote("alice", { ...lectureNote(), noteId, courseId, transcriptionStatus: "COMPLETED" });
  const generator = new OfflineStudyMaterialGenerator();

  it("FlashcardSetCreated, QuizCreated and StudyGuideCreated", async () => {
    const sets = new MemoryMaterials<FlashcardSet>();
    const quizzes = new MemoryMaterials<Quiz>();
    const guides = new MemoryMaterials<StudyGuide>();
    const { material: newSet } = await new GenerateFlashcards(Object.assign(sets, noCards), generator, owners.sources()).execute({
      ...request,
      cardCount: 4,
    });
    const { material: newQuiz } = await new GenerateQuiz(quizzes, generator, owners.sources()).execute({ ...request, questionCount: 3 });
    const { material: newGuide } = await new GenerateStudyGuide(guides, generator, owners.sources()).execute(request);

    expect(sets.outbox.map((event) => event.type)).toEqual(["study.flashcard_set.created.v1"]);
    expect(searchableOf(sets.outbox[0])).toEqual(flashcardSetToSearchable(newSet));
    expect(searchableOf(sets.outbox[0])).toMatchObject({ id: newSet.id, metadata: { cardCount: "4" }, difficulty: "MEDIUM" });
    expect(searchableOf(quizzes.outbox[0])).toEqual(quizToSearchable(newQuiz));
    expect(searchableOf(quizzes.outbox[0])?.content).toContain(newQuiz.questions[0].question);
    expect(searchableOf(guides.outbox[0])).toEqual(studyGuideToSearchable(newGuide));
    expect(searchableOf(guides.outbox[0])?.content).toBe(newGuide.markdown);
  });
});

describe("ListSearchables", () => {
  const id = (n: number) => `0190a5f4-0000-7000-8000-0000000001${String(n).padStart(2, "0")}`;
  const sets = new MemoryMaterials<FlashcardSet>();
  const quizzes = new MemoryMaterials<Quiz>();
  const guides = new MemoryMaterials<StudyGuide>();
  sets.rows.push({ ...set, id: id(1) }, { ...set, id: id(2), userId: "bob" }, { ...set, id: id(3) });
  quizzes.rows.push({ ...quiz, id: id(4) });
  guides.rows.push({ ...guide, id: id(5), userId: "bob" }, { ...guide, id: id(6) });
  const useCase = new ListSearchables({ sets, quizzes, guides });
  const list = (query: { userId?: string; pageToken?: string; pageSize?: number }) => useCase.execute({ pageToken: "", pageSize: 0, ...query });

  async function all(query: { userId?: string; pageSize: number }) {
    const pages: string[][] = [];
    let pageToken = "";
    do {
      const page = await list({ ...query, pageToken });
      pages.push(page.searchables.map((s) => s.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    return pages;
  }

  it("pages through the three tables in turn, a page going on in the next table, the last page without a token", async () => {
    expect(await all({ pageSize: 2 })).toEqual([
      [id(1), id(2)],
      [id(3), id(4)],
      [id(5), id(6)],
    ]);
    expect(await all({ pageSize: 4 })).toEqual([
      [id(1), id(2), id(3), id(4)],
      [id(5), id(6)],
    ]);
    // A page that ends a table while a later one has records is not the last.
    expect(await all({ pageSize: 3 })).toEqual([
      [id(1), id(2), id(3)],
      [id(4), id(5), id(6)],
    ]);
    expect(await all({ pageSize: 6 })).toEqual([[id(1), id(2), id(3), id(4), id(5), id(6)]]);
    expect((await list({})).searchables.map((s) => s.type)).toEqual([2, 2, 2, 4, 3, 3]);
  });

  it("lists one user's material when user_id is given", async () => {
    expect(await all({ userId: "bob", pageSize: 1 })).toEqual([[id(2)], [id(5)]]);
    expect(await all({ userId: "alice", pageSize: 2 })).toEqual([
      [id(1), id(3)],
      [id(4), id(6)],
    ]);
    expect(await all({ userId: "nobody", pageSize: 2 })).toEqual([[]]);
  });

  it(`reads ${DEFAULT_SEARCHABLE_PAGE_SIZE} per page by default, and refuses a bad size or token`, async () => {
    const spy = jest.spyOn(sets, "listPageAfter");
    await list({});
    expect(spy).toHaveBeenCalledWith({ userId: undefined, afterId: null, limit: DEFAULT_SEARCHABLE_PAGE_SIZE + 1 });
    const invalid = { kind: "validation", code: "VALIDATION_ERROR" };
    expect(await refusal(() => list({ pageSize: 1001 }))).toMatchObject({ ...invalid, details: [{ field: "pageSize" }] });
    expect(await refusal(() => list({ pageSize: -3 }))).toMatchObject(invalid);
    for (const pageToken of ["x", encodeTablePageToken({ table: "notes", lastId: id(1) }), encodeTablePageToken({ table: "quiz", lastId: "7" })]) {
      expect(await refusal(() => list({ pageToken }))).toMatchObject({ ...invalid, details: [{ field: "pageToken" }] });
    }
    expect(await refusal(() => list({ userId: "" }))).toMatchObject(invalid);
  });
});
