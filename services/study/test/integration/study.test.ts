import { randomUUID } from "node:crypto";
import { courses, documents, indexing, media, study as api } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { AmqpConnection, createEvent, EventPublisher } from "@study/events";
import { bindUnaryHandlers, createClient, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { captureEvents, createTestDatabase, eventually, testRabbitMqUrl, uniqueSuffix, type EventCapture } from "@study/testkit";
import { GrpcDocumentSource } from "../../src/adapters/sources/grpc-document-source";
import { GrpcNoteSource } from "../../src/adapters/sources/grpc-note-source";
import type { SourceDocument } from "../../src/domain/study-material";
import { PrismaClient } from "../../src/generated/prisma/client";
import { studyService } from "../../src/service";
import { chapterDocument } from "../adapters/generation/offline/fixtures/documents";

/** A short lecture on cell membranes, as a transcription engine would give it: sentences on a timeline. */
const LECTURE = [
  "Today we look at how substances cross the cell membrane.",
  "The cell membrane is a phospholipid bilayer that separates the cell from its surroundings.",
  "Diffusion is the movement of particles from an area of high concentration to an area of low concentration.",
  "Diffusion needs no energy from the cell, so it is a form of passive transport.",
  "Osmosis is the diffusion of water across a selectively permeable membrane.",
  "In a hypotonic solution a red blood cell takes in water and may burst.",
  "In a hypertonic solution the same cell loses water and shrinks.",
  "Active transport moves substances against their concentration gradient and uses energy from ATP.",
  "The sodium potassium pump is an example of active transport found in nerve cells.",
  "Endocytosis is the process by which the cell engulfs large particles in a vesicle.",
  "Exocytosis releases the contents of a vesicle outside the cell.",
  "Facilitated diffusion uses channel proteins or carrier proteins but still needs no energy.",
];

/** A transcribed note's content, as the media service holds it (its owner and course are given when it is stored). */
interface NoteContent {
  noteId: string;
  title: string;
  transcript: string;
  segments: { text: string; startTime: number; endTime: number; confidence?: number }[];
  userNotes: { timestamp: number; content: string }[];
  transcriptionStatus: media.TranscriptionStatus;
}

function sourceNote(noteId: string, sentences = LECTURE): NoteContent {
  return {
    noteId,
    title: "Membrane transport",
    transcript: sentences.join(" "),
    segments: sentences.map((text, index) => ({ text, startTime: index * 6, endTime: index * 6 + 5.5 })),
    userNotes: [{ timestamp: 12, content: "Remember: osmosis is only about water." }],
    transcriptionStatus: media.TranscriptionStatus.TRANSCRIPTION_STATUS_COMPLETED,
  };
}

/**
 * Stand-ins for the owners study reads a generation's sources from (courses, media, documents), holding what each
 * user has and answering as the owners do: NOT_FOUND for an unknown record or another user's, DOCUMENT_NOT_PROCESSED
 * for a document without text. Keyed by user and id.
 */
class Owners {
  readonly courses = new Map<string, string>();
  readonly notes = new Map<string, media.Note>();
  readonly documents = new Map<string, documents.GetDocumentTextResponse | "not processed">();

  addCourse(userId: string, courseId: string, name = "Biology 101"): void {
    this.courses.set(`${userId}/${courseId}`, name);
  }

  addNote(userId: string, courseId: string, note: NoteContent): void {
    this.notes.set(
      `${userId}/${note.noteId}`,
      media.Note.fromPartial({
        id: note.noteId,
        userId,
        courseId,
        title: note.title,
        content: note.transcript,
        transcriptionStatus: note.transcriptionStatus,
        transcriptSegments: note.segments.map((segment, index) => ({ id: `s${index}`, noteId: note.noteId, ...segment })),
        userNotes: note.userNotes.map((entry) => ({ ...entry, contentType: media.UserNoteContentType.USER_NOTE_CONTENT_TYPE_TEXT })),
      }),
    );
  }

  addDocument(userId: string, courseId: string, document: SourceDocument | { documentId: string; notProcessed: true }): void {
    this.documents.set(
      `${userId}/${document.documentId}`,
      "notProcessed" in document ? "not processed" : { documentId: document.documentId, courseId, title: document.title, pages: document.pages },
    );
  }

  start(): Promise<RunningGrpcServer> {
    const logger = createLogger("owners", "silent");
    const mine = <T>(record: T | undefined, what: string): T => {
      if (record === undefined) throw AppError.notFound(what);
      return record;
    };
    return startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger,
      services: [
        {
          definition: courses.CoursesServiceService,
          implementation: bindUnaryHandlers(logger, courses.CoursesServiceService, {
            checkCourseOwnership: async (request) => ({
              course: { id: request.courseId, name: mine(this.courses.get(`${request.userId}/${request.courseId}`), "Course") },
            }),
          }),
        },
        {
          definition: media.MediaServiceService,
          implementation: bindUnaryHandlers(logger, media.MediaServiceService, {
            getNote: async (request) => ({ note: mine(this.notes.get(`${request.userId}/${request.noteId}`), "Note") }),
          }),
        },
        {
          definition: documents.DocumentsServiceService,
          implementation: bindUnaryHandlers(logger, documents.DocumentsServiceService, {
            getDocumentText: async (request) => {
              const text = mine(this.documents.get(`${request.userId}/${request.documentId}`), "Document");
              if (text === "not processed")
                throw new AppError("precondition", "DOCUMENT_NOT_PROCESSED", "The document has no text yet: still processing");
              return text;
            },
          }),
        },
      ],
    });
  }
}

describe("study service over gRPC, with PostgreSQL and RabbitMQ", () => {
  let service: Awaited<ReturnType<typeof startService>>;
  let client: ReturnType<typeof createClient<api.StudyServiceClient>>;
  let source: ReturnType<typeof createClient<indexing.SearchableSourceServiceClient>>;
  let capture: EventCapture;
  let publisherConnection: AmqpConnection;
  let publisher: EventPublisher;
  let exchange: string;
  /** Reads what the API does not show (a material's document ids) and when the consumer handled an event. */
  let db: PrismaClient;
  const owners = new Owners();
  let ownersServer: RunningGrpcServer;

  beforeAll(async () => {
    ownersServer = await owners.start();
    const ownersAddress = `127.0.0.1:${ownersServer.port}`;
    const databaseUrl = await createTestDatabase("study", migrationSources(studyService));
    db = new PrismaClient(prismaOptions(databaseUrl, 2));
    exchange = `test.${uniqueSuffix()}`;
    capture = await captureEvents(testRabbitMqUrl(), exchange, "study.#");
    service = await startService(studyService, {
      handleSignals: false,
      env: {
        DATABASE_URL: databaseUrl,
        RABBITMQ_URL: testRabbitMqUrl(),
        GRPC_PORT: "0",
        EVENT_EXCHANGE: exchange,
        LOG_LEVEL: "silent",
        COURSES_GRPC_ADDRESS: ownersAddress,
        MEDIA_GRPC_ADDRESS: ownersAddress,
        DOCUMENTS_GRPC_ADDRESS: ownersAddress,
      },
    });
    client = createClient(api.StudyServiceClient, api.StudyServiceService, `127.0.0.1:${service.grpcPort}`, { deadlineMs: 30_000 });
    source = createClient(indexing.SearchableSourceServiceClient, indexing.SearchableSourceServiceService, `127.0.0.1:${service.grpcPort}`);
    publisherConnection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await publisherConnection.start(5_000);
    publisher = new EventPublisher(publisherConnection, exchange);
  });

  afterAll(async () => {
    client.close();
    source.close();
    await service.lifecycle.stop();
    await capture.close();
    await publisherConnection.close();
    await db.$disconnect();
    await ownersServer.shutdown();
  });

  /** The user's course holding the notes (stored with the stand-in owners), and the request naming them. */
  const generation = (
    userId: string,
    courseId: string,
    notes: NoteContent[],
    difficulty = api.Difficulty.DIFFICULTY_MEDIUM,
  ): api.GenerationRequest => {
    owners.addCourse(userId, courseId);
    for (const note of notes) owners.addNote(userId, courseId, note);
    return { userId, courseId, noteIds: notes.map((note) => note.noteId), documentIds: [], difficulty, focusAreas: [] };
  };
  /** The same with documents of the course, stored as they are now (a later call may change one's text). */
  const withDocuments = (request: api.GenerationRequest, sources: SourceDocument[], focusAreas: string[] = []): api.GenerationRequest => {
    for (const document of sources) owners.addDocument(request.userId, request.courseId, document);
    return { ...request, documentIds: sources.map((document) => document.documentId), focusAreas };
  };

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code }),
    );

  it("generates each kind once per note content, announcing it with what search needs", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const noteId = randomUUID();
    const request = { generation: generation(userId, courseId, [sourceNote(noteId)]), cardCount: 6 };

    const first = await client.generateFlashcards(request);
    expect(first.created).toBe(true);
    const set = first.flashcardSet!;
    expect(set).toMatchObject({ userId, courseId, noteId, noteTitle: "Membrane transport", noteIds: [noteId], generator: "offline", cardCount: 6 });
    expect(set.flashcards).toHaveLength(6);
    const created = await capture.next("study.flashcard_set.created.v1");
    expect(created).toMatchObject({ source: "study", userId });
    expect(created.payload).toMatchObject({
      $case: "flashcardSetCreated",
      value: { flashcardSetId: set.id, courseId, noteIds: [noteId], cardCount: 6 },
    });
    expect(created.payload?.value).toMatchObject({
      searchable: {
        type: indexing.SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
        id: set.id,
        userId,
        courseId,
        title: set.title,
        content: set.flashcards.map((card) => `${card.front} — ${card.back}`).join("\n"),
        difficulty: "MEDIUM",
        metadata: { cardCount: "6" },
        createdAt: set.createdAt,
        updatedAt: set.updatedAt,
      },
    });

    const second = await client.generateFlashcards(request);
    expect(second).toMatchObject({ created: false, flashcardSet: { id: set.id } });
    // The same note content keeps its one set, whatever the options asked for (the spec's deduplication).
    expect(await client.generateFlashcards({ ...request, cardCount: 4 })).toMatchObject({
      created: false,
      flashcardSet: { id: set.id, cardCount: 6 },
    });

    const quiz = await client.generateQuiz({ generation: request.generation, questionCount: 5 });
    expect(quiz.quiz!.questions).toHaveLength(5);
    const quizCreated = await capture.next("study.quiz.created.v1");
    expect(quizCreated.payload).toMatchObject({ value: { quizId: quiz.quiz!.id, questionCount: 5 } });
    expect(quizCreated.payload?.value).toMatchObject({
      searchable: {
        type: indexing.SearchableType.SEARCHABLE_TYPE_QUIZ,
        id: quiz.quiz!.id,
        title: quiz.quiz!.title,
        metadata: { questionCount: "5" },
      },
    });

    const guide = await client.generateStudyGuide({ generation: request.generation });
    expect(guide.studyGuide!.markdown).toContain("## Overview");
    const guideCreated = await capture.next("study.study_guide.created.v1");
    expect(guideCreated.payload).toMatchObject({
      value: { studyGuideId: guide.studyGuide!.id, sectionCount: guide.studyGuide!.sections.length, content: guide.studyGuide!.markdown },
    });
    expect(guideCreated.payload?.value).toMatchObject({
      searchable: {
        type: indexing.SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE,
        id: guide.studyGuide!.id,
        content: guide.studyGuide!.markdown,
        metadata: { sectionCount: String(guide.studyGuide!.sections.length) },
      },
    });
  });

  it("stores one set when identical requests race", async () => {
    const userId = `user-${randomUUID()}`;
    const request = { generation: generation(userId, randomUUID(), [sourceNote(randomUUID())]), cardCount: 5 };
    const answers = await Promise.all([client.generateFlashcards(request), client.generateFlashcards(request), client.generateFlashcards(request)]);
    expect(new Set(answers.map((answer) => answer.flashcardSet!.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.created)).toHaveLength(1);
    expect((await client.listFlashcardSets({ userId })).flashcardSets).toHaveLength(1);
  });

  it("refuses bad generation input and answers NOT_FOUND across users", async () => {
    const userId = `user-${randomUUID()}`;
    expect(await refusal(client.generateQuiz({ generation: generation(userId, randomUUID(), []), questionCount: 0 }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
    expect(
      await refusal(client.generateFlashcards({ generation: generation(userId, randomUUID(), [sourceNote(randomUUID())]), cardCount: 51 })),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
    const { quiz } = await client.generateQuiz({ generation: generation(userId, randomUUID(), [sourceNote(randomUUID())]), questionCount: 0 });
    expect(await refusal(client.getQuiz({ userId: "someone-else", quizId: quiz!.id }))).toEqual({ kind: "not_found", code: "NOT_FOUND" });
    expect(await refusal(client.deleteQuiz({ userId: "someone-else", quizId: quiz!.id }))).toEqual({ kind: "not_found", code: "NOT_FOUND" });
    expect(await refusal(client.submitQuizAnswers({ userId: "someone-else", quizId: quiz!.id, responses: [] }))).toEqual({
      kind: "not_found",
      code: "NOT_FOUND",
    });
    expect(await refusal(client.getQuiz({ userId, quizId: "not-a-uuid" }))).toEqual({ kind: "not_found", code: "NOT_FOUND" });
  });

  it("follows the notes: a rename updates the note title, a deleted note leaves its material without links", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const noteId = randomUUID();
    const otherNoteId = randomUUID();
    const { flashcardSet } = await client.generateFlashcards({
      generation: generation(userId, courseId, [sourceNote(noteId), sourceNote(otherNoteId, LECTURE.slice(0, 6))]),
      cardCount: 5,
    });
    expect(flashcardSet!.noteIds).toEqual([noteId, otherNoteId]);

    await publisher.publish([
      createEvent("media", userId, {
        $case: "noteUpdated",
        value: { noteId, courseId, title: "Week 3: membranes", transcriptionStatus: "COMPLETED", userNotes: [] },
      }),
    ]);
    await eventually(
      async () => (await client.getFlashcardSet({ userId, flashcardSetId: flashcardSet!.id })).flashcardSet!.noteTitle === "Week 3: membranes",
      10_000,
    );

    await publisher.publish([
      createEvent("media", userId, { $case: "noteDeleted", value: { noteId, courseId, title: "Week 3: membranes", storageKeys: [] } }),
    ]);
    const detached = await eventually(async () => {
      const set = (await client.getFlashcardSet({ userId, flashcardSetId: flashcardSet!.id })).flashcardSet!;
      return set.noteId === undefined ? set : undefined;
    }, 10_000);
    expect(detached).toMatchObject({ noteIds: [otherNoteId], noteTitle: undefined, cardCount: flashcardSet!.cardCount });
    expect(detached.flashcards.some((card) => card.source?.noteId === noteId)).toBe(false);
    expect((await client.listFlashcardSets({ userId, noteId })).flashcardSets).toEqual([]);
    expect((await client.listFlashcardSets({ userId, noteId: otherNoteId })).flashcardSets.map((set) => set.id)).toEqual([flashcardSet!.id]);
  });

  it("announces each material a deleted note leaves (its updatedAt moved) as updated, with the record search indexes (#29)", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const noteId = randomUUID();
    const otherNoteId = randomUUID();
    const request = generation(userId, courseId, [sourceNote(noteId), sourceNote(otherNoteId, LECTURE.slice(0, 6))]);
    const { flashcardSet } = await client.generateFlashcards({ generation: request, cardCount: 3 });
    const { quiz } = await client.generateQuiz({ generation: request, questionCount: 3 });
    const { studyGuide } = await client.generateStudyGuide({ generation: request });
    const { quiz: untouched } = await client.generateQuiz({ generation: generation(userId, courseId, [sourceNote(otherNoteId)]), questionCount: 3 });

    await publisher.publish([createEvent("media", userId, { $case: "noteDeleted", value: { noteId, courseId, title: "Week 3", storageKeys: [] } })]);
    const updated = () =>
      capture.events.flatMap((event) => {
        const payload = event.payload;
        if (event.userId !== userId || !payload) return [];
        if (payload.$case === "flashcardSetUpdated") return [{ id: payload.value.flashcardSetId, type: event.type, ...payload.value }];
        if (payload.$case === "quizUpdated") return [{ id: payload.value.quizId, type: event.type, ...payload.value }];
        if (payload.$case === "studyGuideUpdated") return [{ id: payload.value.studyGuideId, type: event.type, ...payload.value }];
        return [];
      });
    await eventually(async () => updated().length === 3, 10_000);
    expect(
      updated()
        .map((event) => event.id)
        .sort(),
    ).toEqual([flashcardSet!.id, quiz!.id, studyGuide!.id].sort());
    expect(
      updated()
        .map((event) => event.type)
        .sort(),
    ).toEqual(["study.flashcard_set.updated.v1", "study.quiz.updated.v1", "study.study_guide.updated.v1"]);

    // Each event carries the material as it now is: search takes its new updatedAt (and the note list without the note).
    const now = {
      [flashcardSet!.id]: (await client.getFlashcardSet({ userId, flashcardSetId: flashcardSet!.id })).flashcardSet!,
      [quiz!.id]: (await client.getQuiz({ userId, quizId: quiz!.id })).quiz!,
      [studyGuide!.id]: (await client.getStudyGuide({ userId, studyGuideId: studyGuide!.id })).studyGuide!,
    };
    const before = { [flashcardSet!.id]: flashcardSet!, [quiz!.id]: quiz!, [studyGuide!.id]: studyGuide! };
    for (const event of updated()) {
      expect(event).toMatchObject({ courseId, noteIds: [otherNoteId], searchable: { id: event.id, userId, courseId } });
      expect(event.searchable!.updatedAt).toEqual(now[event.id].updatedAt);
      expect(event.searchable!.updatedAt!.getTime()).toBeGreaterThan(before[event.id].updatedAt!.getTime());
    }

    expect(updated().some((event) => event.id === untouched!.id)).toBe(false);

    // The same deletion again changes nothing, so it announces nothing. Then the other note's deletion touches all
    // four: its events, relayed after anything the repeat could have written, mark the end of what to wait for.
    await publisher.publish([createEvent("media", userId, { $case: "noteDeleted", value: { noteId, courseId, title: "Week 3", storageKeys: [] } })]);
    await publisher.publish([
      createEvent("media", userId, { $case: "noteDeleted", value: { noteId: otherNoteId, courseId, title: "Week 4", storageKeys: [] } }),
    ]);
    await eventually(async () => updated().some((event) => event.id === untouched!.id), 10_000);
    await eventually(async () => updated().length === 7, 10_000);
    const perMaterial = updated().reduce<Record<string, number>>((counts, event) => ({ ...counts, [event.id]: (counts[event.id] ?? 0) + 1 }), {});
    expect(perMaterial).toEqual({ [flashcardSet!.id]: 2, [quiz!.id]: 2, [studyGuide!.id]: 2, [untouched!.id]: 1 });
  });

  it("deletes a deleted course's material and announces each deletion", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const keptCourse = randomUUID();
    const request = generation(userId, courseId, [sourceNote(randomUUID())]);
    const { flashcardSet } = await client.generateFlashcards({ generation: request, cardCount: 3 });
    const { quiz } = await client.generateQuiz({ generation: request, questionCount: 3 });
    const { studyGuide } = await client.generateStudyGuide({ generation: request });
    const { quiz: kept } = await client.generateQuiz({ generation: generation(userId, keptCourse, [sourceNote(randomUUID())]), questionCount: 3 });

    await publisher.publish([createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Biology 101" } })]);
    await eventually(async () => (await client.listQuizzes({ userId, courseId })).quizzes.length === 0, 10_000);
    expect((await client.listFlashcardSets({ userId, courseId })).flashcardSets).toEqual([]);
    expect((await client.listStudyGuides({ userId, courseId })).studyGuides).toEqual([]);
    expect((await client.listQuizzes({ userId })).quizzes.map((entry) => entry.id)).toEqual([kept!.id]);

    const deletedIds = () =>
      capture.events.flatMap((event) => {
        const payload = event.payload;
        if (event.userId !== userId || !payload) return [];
        if (payload.$case === "flashcardSetDeleted") return [payload.value.flashcardSetId];
        if (payload.$case === "quizDeleted") return [payload.value.quizId];
        if (payload.$case === "studyGuideDeleted") return [payload.value.studyGuideId];
        return [];
      });
    await eventually(async () => deletedIds().length === 3, 10_000);
    expect(deletedIds().sort()).toEqual([flashcardSet!.id, quiz!.id, studyGuide!.id].sort());
  });

  it("lists newest first, the newest `limit` when one is given (1-100), all of them without", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const otherCourse = randomUUID();
    const request = (course = courseId) => generation(userId, course, [sourceNote(randomUUID())]);
    // Another user's material, made last (so newest): never in this user's lists.
    const stranger = generation(`user-${randomUUID()}`, courseId, [sourceNote(randomUUID())]);
    const made = { sets: [] as string[], quizzes: [] as string[], guides: [] as string[] };
    for (const course of [courseId, otherCourse, courseId]) {
      made.sets.push((await client.generateFlashcards({ generation: request(course), cardCount: 3 })).flashcardSet!.id);
      made.quizzes.push((await client.generateQuiz({ generation: request(course), questionCount: 3 })).quiz!.id);
      made.guides.push((await client.generateStudyGuide({ generation: request(course) })).studyGuide!.id);
    }
    await client.generateFlashcards({ generation: stranger, cardCount: 3 });
    await client.generateQuiz({ generation: stranger, questionCount: 3 });
    await client.generateStudyGuide({ generation: stranger });
    const newestFirst = (ids: string[]) => [...ids].reverse();

    const sets = (limit?: number, course?: string) => client.listFlashcardSets({ userId, limit, courseId: course });
    const quizzes = (limit?: number) => client.listQuizzes({ userId, limit });
    const guides = (limit?: number) => client.listStudyGuides({ userId, limit });
    expect((await sets()).flashcardSets.map((set) => set.id)).toEqual(newestFirst(made.sets));
    expect((await sets(2)).flashcardSets.map((set) => set.id)).toEqual(newestFirst(made.sets).slice(0, 2));
    // Each set still comes with all its cards.
    expect((await sets(1)).flashcardSets[0].flashcards).toHaveLength(3);
    expect((await sets(1, courseId)).flashcardSets.map((set) => set.id)).toEqual([made.sets[2]]);
    expect((await sets(100)).flashcardSets.map((set) => set.id)).toEqual(newestFirst(made.sets));
    expect((await quizzes()).quizzes.map((quiz) => quiz.id)).toEqual(newestFirst(made.quizzes));
    expect((await quizzes(2)).quizzes.map((quiz) => quiz.id)).toEqual(newestFirst(made.quizzes).slice(0, 2));
    expect((await quizzes(2)).quizzes[0].questions).toHaveLength(3);
    expect((await guides()).studyGuides.map((guide) => guide.id)).toEqual(newestFirst(made.guides));
    expect((await guides(1)).studyGuides.map((guide) => guide.id)).toEqual([made.guides[2]]);
    expect((await guides(1)).studyGuides[0].sections.length).toBeGreaterThan(0);

    const invalid = { kind: "validation", code: "VALIDATION_ERROR" };
    for (const limit of [0, -1, 101]) {
      expect(await refusal(sets(limit))).toEqual(invalid);
      expect(await refusal(quizzes(limit))).toEqual(invalid);
      expect(await refusal(guides(limit))).toEqual(invalid);
    }
  });

  it("lists searchables over SearchableSourceService: the three kinds in turn, paged, all users or one, another user's never in one's", async () => {
    const owner = `user-${randomUUID()}`;
    const other = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const request = (userId: string, sentences = LECTURE) => generation(userId, courseId, [sourceNote(randomUUID(), sentences)]);
    const sets = [
      (await client.generateFlashcards({ generation: request(owner), cardCount: 3 })).flashcardSet!.id,
      (await client.generateFlashcards({ generation: request(owner, LECTURE.slice(0, 8)), cardCount: 3 })).flashcardSet!.id,
    ];
    const quiz = (await client.generateQuiz({ generation: request(owner), questionCount: 3 })).quiz!.id;
    const guide = (await client.generateStudyGuide({ generation: request(owner) })).studyGuide!.id;
    const theirs = (await client.generateQuiz({ generation: request(other), questionCount: 3 })).quiz!.id;

    const pages: indexing.Searchable[][] = [];
    let pageToken = "";
    do {
      const page = await source.listSearchables({ userId: owner, pageToken, pageSize: 3 });
      pages.push(page.searchables);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(pages.map((page) => page.length)).toEqual([3, 1]);
    const listed = pages.flat();
    expect(listed.map((s) => s.id)).toEqual([...[...sets].sort(), quiz, guide]);
    expect(listed.map((s) => s.type)).toEqual([
      indexing.SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
      indexing.SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
      indexing.SearchableType.SEARCHABLE_TYPE_QUIZ,
      indexing.SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE,
    ]);
    expect(listed.every((s) => s.userId === owner && s.courseId === courseId && s.difficulty === "MEDIUM")).toBe(true);
    expect(listed.map((s) => s.id)).not.toContain(theirs);
    const { quiz: stored } = await client.getQuiz({ userId: owner, quizId: quiz });
    expect(listed[2]).toMatchObject({
      title: stored!.title,
      metadata: { questionCount: "3" },
      content: expect.stringContaining(stored!.questions[0].question),
    });

    // Without a user: everyone's material, this test's among them, kind by kind, each in id order.
    const everyone: indexing.Searchable[] = [];
    pageToken = "";
    do {
      const page = await source.listSearchables({ pageToken, pageSize: 2 });
      everyone.push(...page.searchables);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    const ids = everyone.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...sets, quiz, guide, theirs]));
    const { SEARCHABLE_TYPE_FLASHCARD_SET, SEARCHABLE_TYPE_QUIZ, SEARCHABLE_TYPE_STUDY_GUIDE } = indexing.SearchableType;
    const tableOrder: indexing.SearchableType[] = [SEARCHABLE_TYPE_FLASHCARD_SET, SEARCHABLE_TYPE_QUIZ, SEARCHABLE_TYPE_STUDY_GUIDE];
    const types = everyone.map((s) => s.type);
    expect(types).toEqual([...types].sort((a, b) => tableOrder.indexOf(a) - tableOrder.indexOf(b)));
    for (const type of tableOrder) {
      const ofType = everyone.filter((s) => s.type === type).map((s) => s.id);
      expect(ofType).toEqual([...ofType].sort());
    }

    expect(await refusal(source.listSearchables({ pageToken: "not a token", pageSize: 0 }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
    expect(await refusal(source.listSearchables({ pageToken: "", pageSize: 1001 }))).toEqual({ kind: "validation", code: "VALIDATION_ERROR" });
  });

  it("generates each kind from a document, linking every item to its page, once per document content and focus", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const documentId = randomUUID();
    const chapter: SourceDocument = { ...chapterDocument(documentId) };
    const fromDocument = (document: SourceDocument, focusAreas: string[] = []): api.GenerationRequest =>
      withDocuments(generation(userId, courseId, []), [document], focusAreas);
    const createdEvent = (id: string) =>
      eventually(async () =>
        capture.events.find((event) => {
          const value = event.payload?.value;
          return (
            !!value && ["flashcardSetId", "quizId", "studyGuideId"].some((key) => key in value && (value as Record<string, unknown>)[key] === id)
          );
        }),
      );
    /** Every link names the document and one of its pages, and nothing of a note. */
    const expectPageLinks = (sources: (api.SourceLink | undefined)[]) => {
      for (const link of sources) {
        expect(link).toEqual({ documentId, page: expect.any(Number) });
        expect([1, 2, 3]).toContain(link?.page);
      }
    };

    const first = await client.generateFlashcards({ generation: fromDocument(chapter, ["osmosis"]), cardCount: 8 });
    expect(first.created).toBe(true);
    const set = first.flashcardSet!;
    expect(set).toMatchObject({
      userId,
      courseId,
      noteIds: [],
      generator: "offline",
      cardCount: 8,
      title: "Biology textbook, chapter 4 — Flashcards",
    });
    expect(set.noteId).toBeUndefined();
    expectPageLinks(set.flashcards.map((card) => card.source));
    expect(`${set.flashcards[0].front} ${set.flashcards[0].back}`.toLowerCase()).toContain("osmosis");
    // Stored: read back with the same links.
    const stored = (await client.getFlashcardSet({ userId, flashcardSetId: set.id })).flashcardSet!;
    expect(stored.flashcards.map((card) => card.source)).toEqual(set.flashcards.map((card) => card.source));
    expect((await createdEvent(set.id)).payload?.value).toMatchObject({
      noteIds: [],
      cardCount: 8,
      searchable: { type: indexing.SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET, id: set.id, userId, courseId, title: set.title },
    });

    // The same document content and focus: the stored set, whatever the count; new page text or another focus: a new one.
    const again = await client.generateFlashcards({ generation: fromDocument({ ...chapter, title: "Renamed" }, ["Osmosis "]), cardCount: 3 });
    expect(again).toMatchObject({ created: false, flashcardSet: { id: set.id, cardCount: 8 } });
    const otherFocus = await client.generateFlashcards({ generation: fromDocument(chapter, ["fermentation"]), cardCount: 3 });
    expect(otherFocus.created).toBe(true);
    const edited = {
      ...chapter,
      pages: [...chapter.pages.slice(0, 2), { number: 3, text: `${chapter.pages[2].text}\n\nATP is the energy currency of the cell.` }],
    };
    expect((await client.generateFlashcards({ generation: fromDocument(edited, ["osmosis"]), cardCount: 3 })).created).toBe(true);

    const { quiz, created: quizCreated } = await client.generateQuiz({ generation: fromDocument(chapter), questionCount: 7 });
    expect(quizCreated).toBe(true);
    expect(quiz!.questions).toHaveLength(7);
    expectPageLinks(quiz!.questions.map((question) => question.source));
    expect((await client.getQuiz({ userId, quizId: quiz!.id })).quiz!.questions.map((question) => question.source)).toEqual(
      quiz!.questions.map((question) => question.source),
    );
    expect((await createdEvent(quiz!.id)).payload?.value).toMatchObject({
      questionCount: 7,
      searchable: { type: indexing.SearchableType.SEARCHABLE_TYPE_QUIZ, id: quiz!.id, metadata: { questionCount: "7" } },
    });
    expect(await client.generateQuiz({ generation: fromDocument(chapter), questionCount: 2 })).toMatchObject({
      created: false,
      quiz: { id: quiz!.id },
    });

    const { studyGuide, created: guideCreated } = await client.generateStudyGuide({ generation: fromDocument(chapter) });
    expect(guideCreated).toBe(true);
    expectPageLinks(studyGuide!.sections.map((section) => section.source));
    expect(studyGuide!.sections[0].source).toEqual({ documentId, page: 1 });
    expect((await createdEvent(studyGuide!.id)).payload?.value).toMatchObject({
      sectionCount: studyGuide!.sections.length,
      searchable: { type: indexing.SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE, id: studyGuide!.id, content: studyGuide!.markdown },
    });
  });

  it("follows the documents: a deleted document leaves its material without links to it, once, for its owner only", async () => {
    const userId = `user-${randomUUID()}`;
    const otherUserId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const documentId = randomUUID();
    const noteId = randomUUID();
    const fromDocument = (owner: string, notes: NoteContent[] = []): api.GenerationRequest =>
      withDocuments(generation(owner, courseId, notes), [chapterDocument(documentId)]);
    const { flashcardSet } = await client.generateFlashcards({ generation: fromDocument(userId, [sourceNote(noteId)]), cardCount: 12 });
    const { quiz } = await client.generateQuiz({ generation: fromDocument(userId), questionCount: 5 });
    const { studyGuide } = await client.generateStudyGuide({ generation: fromDocument(userId) });
    const { flashcardSet: othersSet } = await client.generateFlashcards({ generation: fromDocument(otherUserId), cardCount: 4 });
    const readAll = async () => ({
      set: (await client.getFlashcardSet({ userId, flashcardSetId: flashcardSet!.id })).flashcardSet!,
      quiz: (await client.getQuiz({ userId, quizId: quiz!.id })).quiz!,
      guide: (await client.getStudyGuide({ userId, studyGuideId: studyGuide!.id })).studyGuide!,
    });
    const sources = ({ set, quiz: readQuiz, guide }: Awaited<ReturnType<typeof readAll>>) => [
      ...set.flashcards.map((card) => card.source),
      ...readQuiz.questions.map((question) => question.source),
      ...guide.sections.map((section) => section.source),
    ];
    const before = await readAll();
    expect(sources(before).filter((link) => link?.documentId === documentId).length).toBeGreaterThan(0);
    const documentIdsOf = async (table: "flashcard_set" | "quiz" | "study_guide", id: string) =>
      (await db.$queryRawUnsafe<{ document_ids: string[] }[]>(`SELECT document_ids FROM ${table} WHERE id = $1::uuid`, id))[0].document_ids;
    expect(await documentIdsOf("flashcard_set", flashcardSet!.id)).toEqual([documentId]);
    const deleted = () =>
      createEvent("documents", userId, {
        $case: "documentDeleted",
        value: { documentId, courseId, title: "Biology textbook, chapter 4", storageKey: `documents/${documentId}` },
      });
    const handled = (eventId: string) =>
      eventually(async () => (await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM inbox_message WHERE event_id = $1`, eventId)).length > 0, 10_000);

    const first = deleted();
    await publisher.publish([first]);
    await handled(first.id);
    const after = await readAll();
    expect(sources(after).some((link) => link?.documentId === documentId)).toBe(false);
    // The material stays whole, and the note's links are another source's.
    expect([after.set.cardCount, after.quiz.questions.length, after.guide.sections.length]).toEqual([
      before.set.cardCount,
      before.quiz.questions.length,
      before.guide.sections.length,
    ]);
    expect(after.set.flashcards.map((card) => card.source).filter((link) => link?.noteId)).toEqual(
      before.set.flashcards.map((card) => card.source).filter((link) => link?.noteId),
    );
    expect(after.set.noteIds).toEqual([noteId]);
    expect(await documentIdsOf("flashcard_set", flashcardSet!.id)).toEqual([]);
    expect(await documentIdsOf("quiz", quiz!.id)).toEqual([]);
    expect(await documentIdsOf("study_guide", studyGuide!.id)).toEqual([]);

    // Another user's material from a document of the same id is not the owner's to clear.
    const others = (await client.getFlashcardSet({ userId: otherUserId, flashcardSetId: othersSet!.id })).flashcardSet!;
    expect(others.flashcards.map((card) => card.source)).toEqual(othersSet!.flashcards.map((card) => card.source));
    expect(others.flashcards.every((card) => card.source?.documentId === documentId)).toBe(true);
    expect(await documentIdsOf("flashcard_set", othersSet!.id)).toEqual([documentId]);

    // The same deletion again (a new event: the inbox does not hold it back) changes nothing more.
    const updatedAt = () => db.$queryRawUnsafe<{ updated_at: Date }[]>(`SELECT updated_at FROM quiz WHERE id = $1::uuid`, quiz!.id);
    const updatedAfterFirst = await updatedAt();
    const again = deleted();
    await publisher.publish([again]);
    await handled(again.id);
    expect(await readAll()).toEqual(after);
    expect(await updatedAt()).toEqual(updatedAfterFirst);
  });

  it("refuses a document without text, and bad focus areas", async () => {
    const userId = `user-${randomUUID()}`;
    const scan: SourceDocument = { documentId: randomUUID(), title: "Scanned handout", pages: [{ number: 1, text: "  " }] };
    const request = (document: SourceDocument, focusAreas: string[] = []) => ({
      generation: withDocuments(generation(userId, randomUUID(), []), [document], focusAreas),
    });
    expect(await refusal(client.generateStudyGuide(request(scan)))).toEqual({ kind: "precondition", code: "DOCUMENT_HAS_NO_TEXT" });
    expect(await refusal(client.generateQuiz({ ...request(chapterDocument(randomUUID()), ["x".repeat(101)]), questionCount: 5 }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
    expect(await refusal(client.generateQuiz({ ...request(chapterDocument(randomUUID())), questionCount: 51 }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
  });
  it("reads its sources from their owners as the user: 404 for another user's or a misplaced one, 409, DOCUMENT_NOT_PROCESSED", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const otherCourse = randomUUID();
    const request = generation(userId, courseId, [sourceNote(randomUUID())]);
    const notFound = { kind: "not_found", code: "NOT_FOUND" };
    const quiz = (generationRequest: api.GenerationRequest) => client.generateQuiz({ generation: generationRequest, questionCount: 3 });

    // Another user's course, note or document, an unknown one, one of another of the user's courses: NOT_FOUND.
    expect(await refusal(quiz({ ...request, userId: `user-${randomUUID()}` }))).toEqual(notFound);
    expect(await refusal(quiz({ ...request, courseId: randomUUID() }))).toEqual(notFound);
    expect(await refusal(quiz({ ...request, noteIds: [randomUUID()] }))).toEqual(notFound);
    const elsewhere = generation(userId, otherCourse, [sourceNote(randomUUID())]);
    expect(await refusal(quiz({ ...request, noteIds: [...request.noteIds, ...elsewhere.noteIds] }))).toEqual(notFound);
    const otherCoursesDocument = withDocuments(elsewhere, [chapterDocument(randomUUID())]);
    expect(await refusal(quiz({ ...request, documentIds: otherCoursesDocument.documentIds }))).toEqual(notFound);

    // A note still being transcribed: 409 NOTE_NOT_TRANSCRIBED; a document without text yet: the documents service's refusal.
    const pending = { ...sourceNote(randomUUID()), transcriptionStatus: media.TranscriptionStatus.TRANSCRIPTION_STATUS_PROCESSING };
    expect(await refusal(quiz(generation(userId, courseId, [pending])))).toEqual({ kind: "conflict", code: "NOTE_NOT_TRANSCRIBED" });
    const scanId = randomUUID();
    owners.addDocument(userId, courseId, { documentId: scanId, notProcessed: true });
    expect(await refusal(quiz({ ...generation(userId, "", []), documentIds: [scanId] }))).toEqual({
      kind: "precondition",
      code: "DOCUMENT_NOT_PROCESSED",
    });
    expect((await client.listQuizzes({ userId })).quizzes).toEqual([]);

    // The document endpoint names no course: the material is in its document's, and the answer names the document.
    const documentId = randomUUID();
    owners.addDocument(userId, courseId, chapterDocument(documentId));
    const fromDocument = { ...generation(userId, "", []), documentIds: [documentId] };
    const made = await client.generateStudyGuide({ generation: fromDocument });
    expect(made).toMatchObject({
      created: true,
      studyGuide: { courseId },
      documents: [{ id: documentId, title: chapterDocument(documentId).title }],
    });
  });

  it("keeps each transcript segment's recogniser confidence as media gives it (0 is a score; none stays none)", async () => {
    const userId = `user-${randomUUID()}`;
    const courseId = randomUUID();
    const note: NoteContent = {
      ...sourceNote(randomUUID()),
      segments: [
        { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5, confidence: 0.92 },
        { text: "Mumble.", startTime: 3.5, endTime: 4, confidence: 0 },
        { text: "They are proteins.", startTime: 4, endTime: 5.25 },
      ],
    };
    owners.addNote(userId, courseId, note);
    const notes = new GrpcNoteSource(`127.0.0.1:${ownersServer.port}`);
    const documentTexts = new GrpcDocumentSource(`127.0.0.1:${ownersServer.port}`);
    try {
      const read = await notes.getNote(userId, note.noteId);
      expect(read).toMatchObject({ noteId: note.noteId, courseId, transcriptionStatus: "COMPLETED", transcript: note.transcript });
      expect(read.segments).toEqual([
        { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5, confidence: 0.92 },
        { text: "Mumble.", startTime: 3.5, endTime: 4, confidence: 0 },
        { text: "They are proteins.", startTime: 4, endTime: 5.25 },
      ]);
      expect(read.segments[1].confidence).toBe(0);
      expect(read.segments[2].confidence).toBeUndefined();
      expect(read.userNotes).toEqual([{ timestamp: 12, content: "Remember: osmosis is only about water.", contentType: "text" }]);
      expect(await refusal(notes.getNote(`user-${randomUUID()}`, note.noteId))).toEqual({ kind: "not_found", code: "NOT_FOUND" });
      expect(await refusal(documentTexts.getDocumentText(userId, randomUUID()))).toEqual({ kind: "not_found", code: "NOT_FOUND" });
    } finally {
      notes.close();
      documentTexts.close();
    }
  });
});
