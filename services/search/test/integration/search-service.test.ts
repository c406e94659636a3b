import { indexing, search as api } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher, type EventEnvelope } from "@study/events";
import { createClient } from "@study/grpc";
import { createLogger } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { createTestDatabase, eventually, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { refusal } from "@study/testkit/refusal";
import { CONSUMER_NAME } from "../../src/adapters/events/domain-events-consumer";
import type { SearchConfig } from "../../src/config";
import type { PrismaClient } from "../../src/generated/prisma/client";
import { searchService } from "../../src/service";

const { SearchableType } = indexing;
const T0 = Date.parse("2025-03-01T10:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** A searchable as an owner builds it (see proto/study/search/v1/indexing.proto). */
function searchable(userId: string, overrides: Partial<indexing.Searchable> & Pick<indexing.Searchable, "id" | "title">): indexing.Searchable {
  return {
    type: SearchableType.SEARCHABLE_TYPE_NOTE,
    userId,
    courseId: undefined,
    keywords: [],
    description: "",
    content: "",
    difficulty: undefined,
    status: undefined,
    metadata: {},
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

describe("search service over gRPC, kept current from RabbitMQ events (embedded index on PostgreSQL)", () => {
  let service: Awaited<ReturnType<typeof startService<PrismaClient, SearchConfig>>>;
  let client: ReturnType<typeof createClient<api.SearchServiceClient>>;
  let publisherConnection: AmqpConnection;
  let publisher: EventPublisher;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("search", migrationSources(searchService));
    const exchange = `test.${uniqueSuffix()}`;
    service = await startService(searchService, {
      handleSignals: false,
      env: { DATABASE_URL: databaseUrl, RABBITMQ_URL: testRabbitMqUrl(), GRPC_PORT: "0", EVENT_EXCHANGE: exchange, LOG_LEVEL: "silent" },
    });
    client = createClient(api.SearchServiceClient, api.SearchServiceService, `127.0.0.1:${service.grpcPort}`);
    publisherConnection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await publisherConnection.start(5_000);
    publisher = new EventPublisher(publisherConnection, exchange);
  });

  afterAll(async () => {
    client.close();
    await publisherConnection.close();
    await service.lifecycle.stop();
  });

  const user = () => `user-${uniqueSuffix()}`;
  const id = (prefix: string) => `${prefix}-${uniqueSuffix()}`;

  /** Resolves once the consumer recorded the event in its inbox, i.e. handled it (or recognised it as a repeat). */
  const handled = (envelope: EventEnvelope) =>
    eventually(async () => {
      const rows = await service.db.$queryRaw<unknown[]>`SELECT 1 FROM inbox_message WHERE consumer = ${CONSUMER_NAME} AND event_id = ${envelope.id}`;
      return rows.length > 0;
    });

  const publishAndWait = async (...envelopes: EventEnvelope[]) => {
    await publisher.publish(envelopes);
    for (const envelope of envelopes) await handled(envelope);
  };

  const noteEvent = (userId: string, note: indexing.Searchable, kind: "noteImportStarted" | "noteUpdated" = "noteUpdated") =>
    kind === "noteUpdated"
      ? createEvent("media", userId, {
          $case: "noteUpdated",
          value: {
            noteId: note.id,
            courseId: note.courseId ?? "",
            title: note.title,
            transcriptionStatus: "COMPLETED",
            userNotes: [],
            searchable: note,
          },
        })
      : createEvent("media", userId, {
          $case: "noteImportStarted",
          value: { noteId: note.id, jobId: "job", courseId: note.courseId ?? "", title: note.title, importType: "video_import", searchable: note },
        });

  const titlesFound = async (userId: string, query: string, extra: Partial<api.SearchRequest> = {}) =>
    (await client.search({ userId, query, minRelevance: "0", ...extra })).results.map((result) => result.title);

  it("finds a created note, finds it by its new title after an update, and forgets it once deleted", async () => {
    const userId = user();
    const noteId = id("note");
    const created = searchable(userId, { id: noteId, title: "Photosynthesis lecture", content: "chlorophyll absorbs light", status: "PROCESSING" });
    await publishAndWait(noteEvent(userId, created, "noteImportStarted"));
    const first = await client.search({ userId, query: "photosynthesis" });
    expect(first.results).toEqual([
      expect.objectContaining({
        id: noteId,
        type: SearchableType.SEARCHABLE_TYPE_NOTE,
        title: "Photosynthesis lecture",
        createdAt: at(0),
        updatedAt: at(0),
      }),
    ]);
    expect(first).toMatchObject({ totalCount: 1, resultsByType: { note: 1 }, query: "photosynthesis", limit: 50, offset: 0, hasMore: false });
    expect(first.results[0].relevanceScore).toBeGreaterThan(0);
    expect(first.results[0].relevanceScore).toBeLessThanOrEqual(1);
    expect(first.searchTime).toBeGreaterThan(0);

    await publishAndWait(noteEvent(userId, { ...created, title: "Cellular respiration", updatedAt: at(5) }));
    expect(await titlesFound(userId, "respiration")).toEqual(["Cellular respiration"]);
    expect(await titlesFound(userId, "photosynthesis")).toEqual([]);

    await publishAndWait(
      createEvent("media", userId, { $case: "noteDeleted", value: { noteId, courseId: "", title: "Cellular respiration", storageKeys: [] } }),
    );
    expect(await titlesFound(userId, "respiration")).toEqual([]);
  });

  it("takes a study material's updated event: the new date and record (a source note was deleted, #29)", async () => {
    const userId = user();
    const kinds = [
      { type: SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET, title: "Kinetics flashcards" },
      { type: SearchableType.SEARCHABLE_TYPE_QUIZ, title: "Kinetics quiz" },
      { type: SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE, title: "Kinetics study guide" },
    ].map((kind) => searchable(userId, { ...kind, id: id("material"), content: "reaction rates", updatedAt: at(1) }));
    const [set, quiz, guide] = kinds;
    await publishAndWait(
      createEvent("study", userId, {
        $case: "flashcardSetCreated",
        value: {
          flashcardSetId: set.id,
          courseId: "",
          noteIds: [],
          title: set.title,
          description: "",
          difficulty: "",
          cardCount: 1,
          cardTexts: [],
          searchable: set,
        },
      }),
      createEvent("study", userId, {
        $case: "quizCreated",
        value: {
          quizId: quiz.id,
          courseId: "",
          noteIds: [],
          title: quiz.title,
          description: "",
          difficulty: "",
          questionCount: 1,
          questionTexts: [],
          searchable: quiz,
        },
      }),
      createEvent("study", userId, {
        $case: "studyGuideCreated",
        value: {
          studyGuideId: guide.id,
          courseId: "",
          noteIds: [],
          title: guide.title,
          description: "",
          difficulty: "",
          sectionCount: 1,
          content: "",
          searchable: guide,
        },
      }),
    );
    const dates = async () =>
      Object.fromEntries(
        (await client.search({ userId, query: "kinetics", minRelevance: "0" })).results.map((result) => [result.title, result.updatedAt]),
      );
    expect(await dates()).toEqual({ [set.title]: at(1), [quiz.title]: at(1), [guide.title]: at(1) });

    await publishAndWait(
      createEvent("study", userId, {
        $case: "flashcardSetUpdated",
        value: { flashcardSetId: set.id, courseId: "", noteIds: [], searchable: { ...set, updatedAt: at(7) } },
      }),
      createEvent("study", userId, {
        $case: "quizUpdated",
        value: { quizId: quiz.id, courseId: "", noteIds: [], searchable: { ...quiz, updatedAt: at(8) } },
      }),
      createEvent("study", userId, {
        $case: "studyGuideUpdated",
        value: { studyGuideId: guide.id, courseId: "", noteIds: [], searchable: { ...guide, updatedAt: at(9) } },
      }),
    );
    expect(await dates()).toEqual({ [set.title]: at(7), [quiz.title]: at(8), [guide.title]: at(9) });
  });

  it("applies a redelivered event once, keeps a delete that overtook its create, and ignores an older update after a newer one", async () => {
    const userId = user();
    const quizId = id("quiz");
    const quiz = searchable(userId, { id: quizId, type: SearchableType.SEARCHABLE_TYPE_QUIZ, title: "Enzymes quiz", difficulty: "HARD" });
    const quizCreated = createEvent("study", userId, {
      $case: "quizCreated",
      value: {
        quizId,
        courseId: "",
        noteIds: [],
        title: quiz.title,
        description: "",
        difficulty: "HARD",
        questionCount: 3,
        questionTexts: [],
        searchable: quiz,
      },
    });
    await publishAndWait(quizCreated);
    // The same envelope again, then another event: once that one is handled, the repeat queued before it was
    // recognised by the inbox too, and the ledger keeps the first application.
    const before = await service.db.indexedRecord.findUniqueOrThrow({ where: { type_id: { type: "quiz", id: quizId } } });
    await publisher.publish([quizCreated]);
    // A delete that arrives before its create: the create finds the tombstone.
    const guideId = id("guide");
    await publishAndWait(createEvent("study", userId, { $case: "studyGuideDeleted", value: { studyGuideId: guideId, courseId: "" } }));
    expect(await service.db.indexedRecord.findUniqueOrThrow({ where: { type_id: { type: "quiz", id: quizId } } })).toEqual(before);
    expect(await service.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM inbox_message WHERE event_id = ${quizCreated.id}`).toEqual([
      { n: 1n },
    ]);
    expect(await titlesFound(userId, "enzymes")).toEqual(["Enzymes quiz"]);

    const guide = searchable(userId, { id: guideId, type: SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE, title: "Enzymes study guide" });
    await publishAndWait(
      createEvent("study", userId, {
        $case: "studyGuideCreated",
        value: {
          studyGuideId: guideId,
          courseId: "",
          noteIds: [],
          title: guide.title,
          description: "",
          difficulty: "",
          sectionCount: 1,
          content: "",
          searchable: guide,
        },
      }),
    );
    expect(await titlesFound(userId, "enzymes")).toEqual(["Enzymes quiz"]);

    // Out of order: the newer update is handled first, then the older one arrives.
    const noteId = id("note");
    await publishAndWait(noteEvent(userId, searchable(userId, { id: noteId, title: "Kinetics, final version", updatedAt: at(10) })));
    await publishAndWait(noteEvent(userId, searchable(userId, { id: noteId, title: "Kinetics draft", updatedAt: at(9) })));
    expect(await titlesFound(userId, "kinetics")).toEqual(["Kinetics, final version"]);
  });

  const calendarEvent = (userId: string, event: indexing.Searchable, kind: "calendarEventCreated" | "calendarEventUpdated") =>
    createEvent("calendar", userId, { $case: kind, value: { eventId: event.id, courseId: event.courseId, searchable: event } });
  const calendarEventDeleted = (userId: string, eventId: string) =>
    createEvent("calendar", userId, { $case: "calendarEventDeleted", value: { eventId } });

  it("indexes calendar events from their created and updated events, applies a redelivery once, and forgets a deleted one", async () => {
    const userId = user();
    const eventId = id("event");
    const created = searchable(userId, {
      id: eventId,
      type: SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT,
      title: "Thermodynamics midterm",
      keywords: ["Room 101", "EXAM"],
      content: "chapters 1-4",
      metadata: { startDate: "2025-03-10T09:00:00.000Z", eventType: "EXAM", priority: "HIGH" },
    });
    const createdEvent = calendarEvent(userId, created, "calendarEventCreated");
    await publishAndWait(createdEvent);
    expect((await client.search({ userId, query: "thermodynamics" })).results).toEqual([
      expect.objectContaining({
        id: eventId,
        type: SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT,
        title: "Thermodynamics midterm",
        metadata: { startDate: "2025-03-10T09:00:00.000Z", eventType: "EXAM", priority: "HIGH" },
      }),
    ]);
    expect(await titlesFound(userId, "thermodynamics", { types: "calendar_event" })).toEqual(["Thermodynamics midterm"]);

    await publishAndWait(calendarEvent(userId, { ...created, title: "Entropy final exam", updatedAt: at(5) }, "calendarEventUpdated"));
    expect(await titlesFound(userId, "entropy")).toEqual(["Entropy final exam"]);
    expect(await titlesFound(userId, "thermodynamics")).toEqual([]);

    // The create again (redelivered): once the next event is handled, the repeat queued before it was recognised
    // by the inbox, and neither the ledger nor the index went back to the first title.
    const before = await service.db.indexedRecord.findUniqueOrThrow({ where: { type_id: { type: "calendar_event", id: eventId } } });
    await publisher.publish([createdEvent]);
    await publishAndWait(calendarEventDeleted(userId, id("event")));
    expect(await service.db.indexedRecord.findUniqueOrThrow({ where: { type_id: { type: "calendar_event", id: eventId } } })).toEqual(before);
    expect(await service.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM inbox_message WHERE event_id = ${createdEvent.id}`).toEqual([
      { n: 1n },
    ]);
    expect(await titlesFound(userId, "entropy")).toEqual(["Entropy final exam"]);
    expect(await titlesFound(userId, "thermodynamics")).toEqual([]);

    await publishAndWait(calendarEventDeleted(userId, eventId));
    expect(await titlesFound(userId, "entropy")).toEqual([]);
    // An update that arrives after the delete (late) stays out.
    await publishAndWait(calendarEvent(userId, { ...created, title: "Entropy retake", updatedAt: at(10) }, "calendarEventUpdated"));
    expect(await titlesFound(userId, "entropy")).toEqual([]);
  });

  it("keeps a calendar event's delete that overtook its create final", async () => {
    const userId = user();
    const eventId = id("event");
    await publishAndWait(calendarEventDeleted(userId, eventId));
    const event = searchable(userId, { id: eventId, type: SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT, title: "Lab safety briefing" });
    await publishAndWait(calendarEvent(userId, event, "calendarEventCreated"));
    expect(await titlesFound(userId, "briefing")).toEqual([]);
    expect(await service.db.indexedRecord.findUniqueOrThrow({ where: { type_id: { type: "calendar_event", id: eventId } } })).toMatchObject({
      deletedAt: expect.any(Date),
    });
  });

  it("keeps a calendar event of a deleted course and applies the calendar's update that detaches it", async () => {
    const userId = user();
    const courseId = id("course");
    const course = searchable(userId, { id: courseId, type: SearchableType.SEARCHABLE_TYPE_COURSE, courseId, title: "Geology" });
    const event = searchable(userId, { id: id("event"), type: SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT, courseId, title: "Field trip" });
    await publishAndWait(
      createEvent("courses", userId, { $case: "courseCreated", value: { course: { id: courseId, name: course.title }, searchable: course } }),
      calendarEvent(userId, event, "calendarEventCreated"),
    );
    await publishAndWait(createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Geology" } }));
    expect(await titlesFound(userId, "geology")).toEqual([]);
    expect(await titlesFound(userId, "field trip")).toEqual(["Field trip"]);

    await publishAndWait(calendarEvent(userId, { ...event, courseId: undefined, updatedAt: at(1) }, "calendarEventUpdated"));
    const [found] = (await client.search({ userId, query: "field trip" })).results;
    expect(found).toMatchObject({ id: event.id, title: "Field trip" });
    expect(found.courseId).toBeUndefined();
  });

  it("indexes chat sessions from chat's created and updated events, forgets a deleted one, and drops them with their course", async () => {
    const userId = user();
    const courseId = id("course");
    const chatEvent = (session: indexing.Searchable, kind: "chatSessionCreated" | "chatSessionUpdated") =>
      createEvent("chat", userId, { $case: kind, value: { sessionId: session.id, courseId, title: session.title, searchable: session } });
    const session = searchable(userId, {
      id: id("chat"),
      type: SearchableType.SEARCHABLE_TYPE_CHAT_SESSION,
      courseId,
      title: "Chat about Microbiology",
      metadata: { messageCount: "0" },
    });
    await publishAndWait(chatEvent(session, "chatSessionCreated"));
    expect(await titlesFound(userId, "microbiology", { types: "chat_session" })).toEqual(["Chat about Microbiology"]);

    const asked = {
      ...session,
      title: "How fast does E. coli divide?",
      description: "How fast does E. coli divide?",
      content: "Q: How fast does E. coli divide?\nA: From your notes: every twenty minutes [1].",
      metadata: { messageCount: "2" },
      updatedAt: at(3),
    };
    await publishAndWait(chatEvent(asked, "chatSessionUpdated"));
    expect((await client.search({ userId, query: "twenty minutes" })).results).toEqual([
      expect.objectContaining({
        id: session.id,
        type: SearchableType.SEARCHABLE_TYPE_CHAT_SESSION,
        title: asked.title,
        metadata: { messageCount: "2" },
      }),
    ]);

    const other = searchable(userId, { id: id("chat"), type: SearchableType.SEARCHABLE_TYPE_CHAT_SESSION, courseId, title: "Autoclave questions" });
    await publishAndWait(
      createEvent("chat", userId, { $case: "chatSessionDeleted", value: { sessionId: session.id, courseId } }),
      chatEvent(other, "chatSessionCreated"),
    );
    expect(await titlesFound(userId, "twenty minutes")).toEqual([]);
    expect(await titlesFound(userId, "autoclave")).toEqual(["Autoclave questions"]);

    await publishAndWait(createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Microbiology" } }));
    expect(await titlesFound(userId, "autoclave")).toEqual([]);
  });

  it("skips an event published before events carried their searchable", async () => {
    const userId = user();
    const flashcardSetId = id("set");
    await publishAndWait(
      createEvent("study", userId, {
        $case: "flashcardSetCreated",
        value: {
          flashcardSetId,
          courseId: "",
          noteIds: [],
          title: "Legacy set",
          description: "",
          difficulty: "EASY",
          cardCount: 1,
          cardTexts: [],
          searchable: undefined,
        },
      }),
    );
    expect(await titlesFound(userId, "legacy")).toEqual([]);
    expect(await service.db.indexedRecord.count({ where: { id: flashcardSetId } })).toBe(0);
  });

  it("names results' courses, lists the user's courses in the filters, and removes a deleted course with everything of it", async () => {
    const userId = user();
    const courseId = id("course");
    const course = searchable(userId, {
      id: courseId,
      type: SearchableType.SEARCHABLE_TYPE_COURSE,
      courseId,
      title: "Organic Chemistry",
      keywords: ["CHEM 201", "Dr. Curie", "Fall 2025"],
      metadata: { semester: "Fall 2025", code: "CHEM 201" },
    });
    await publishAndWait(
      createEvent("courses", userId, { $case: "courseCreated", value: { course: { id: courseId, name: course.title }, searchable: course } }),
    );
    const setId = id("set");
    const set = searchable(userId, {
      id: setId,
      type: SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
      courseId,
      title: "Alkenes flashcards",
      content: "Markovnikov — the hydrogen goes to the carbon with more hydrogens",
      difficulty: "MEDIUM",
      metadata: { cardCount: "1" },
    });
    await publishAndWait(
      createEvent("study", userId, {
        $case: "flashcardSetCreated",
        value: {
          flashcardSetId: setId,
          courseId,
          noteIds: [],
          title: set.title,
          description: "",
          difficulty: "MEDIUM",
          cardCount: 1,
          cardTexts: [],
          searchable: set,
        },
      }),
    );
    const [found] = (await client.search({ userId, query: "alkenes" })).results;
    expect(found).toMatchObject({ id: setId, courseId, courseName: "Organic Chemistry", metadata: { cardCount: "1" } });
    expect((await client.getSearchFilters({ userId })).courses).toEqual([{ value: courseId, label: "Organic Chemistry", semester: "Fall 2025" }]);
    expect(await titlesFound(userId, "alkenes", { courseId, difficulty: "MEDIUM", types: "flashcard_set" })).toEqual(["Alkenes flashcards"]);
    expect(await titlesFound(userId, "alkenes", { difficulty: "EASY" })).toEqual([]);

    await publishAndWait(createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Organic Chemistry" } }));
    expect(await titlesFound(userId, "alkenes")).toEqual([]);
    expect(await titlesFound(userId, "chemistry")).toEqual([]);
    expect((await client.getSearchFilters({ userId })).courses).toEqual([]);
  });

  it("never shows user B anything of user A's: results, counts, suggestions or courses", async () => {
    const alice = user();
    const bob = user();
    const courseId = id("course");
    const course = searchable(alice, {
      id: courseId,
      type: SearchableType.SEARCHABLE_TYPE_COURSE,
      courseId,
      title: "Astrophysics",
      metadata: { semester: "Spring" },
    });
    await publishAndWait(
      createEvent("courses", alice, { $case: "courseCreated", value: { course: { id: courseId, name: course.title }, searchable: course } }),
      noteEvent(alice, searchable(alice, { id: id("note"), courseId, title: "Astrophysics: black holes" }), "noteImportStarted"),
    );
    expect((await client.search({ userId: alice, query: "astrophysics" })).totalCount).toBe(2);
    const bobs = await client.search({ userId: bob, query: "astrophysics" });
    expect(bobs).toMatchObject({ results: [], totalCount: 0, resultsByType: {}, suggestions: [] });
    expect((await client.getSuggestions({ userId: bob, query: "astro" })).suggestions).toEqual([]);
    expect((await client.getSuggestions({ userId: alice, query: "astro" })).suggestions.length).toBeGreaterThan(0);
    expect((await client.getSearchFilters({ userId: bob })).courses).toEqual([]);
  });

  it("answers every validation code of the spec over gRPC", async () => {
    const userId = user();
    const code = async (request: Partial<api.SearchRequest>) => (await refusal(() => client.search({ userId, ...request }))).code;
    expect(await code({})).toBe("VALIDATION_ERROR");
    expect(await code({ query: "a".repeat(501) })).toBe("VALIDATION_ERROR");
    expect(await code({ query: "x", types: "video" })).toBe("VALIDATION_ERROR");
    expect(await code({ query: "x", difficulty: "TRIVIAL" })).toBe("VALIDATION_ERROR");
    expect(await code({ query: "x", status: "PENDING" })).toBe("VALIDATION_ERROR");
    expect(await code({ query: "x", startDate: "2025-02-30" })).toBe("VALIDATION_ERROR");
    expect(await code({ query: "x", limit: "101" })).toBe("INVALID_LIMIT");
    expect(await code({ query: "x", offset: "-1" })).toBe("INVALID_OFFSET");
    expect(await code({ query: "x", minRelevance: "1.5" })).toBe("INVALID_MIN_RELEVANCE");
    expect(await code({ query: "x", startDate: "2025-03-02", endDate: "2025-03-01" })).toBe("INVALID_DATE_RANGE");
    expect(await refusal(() => client.search({ userId, query: "x", limit: "0" }))).toEqual({
      kind: "validation",
      code: "INVALID_LIMIT",
      details: [{ field: "limit", message: "must be an integer between 1 and 100" }],
    });
    expect(await refusal(() => client.getSuggestions({ userId, query: "a" }))).toMatchObject({ kind: "validation", code: "QUERY_TOO_SHORT" });
    expect(await refusal(() => client.getSuggestions({ userId, query: "a".repeat(101) }))).toMatchObject({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
  });

  it("answers SEARCH_FAILED, FILTERS_FAILED and SUGGESTIONS_FAILED (internal) while its database is unreachable", async () => {
    const userId = user();
    // Every table of search (ledger, course names, the embedded index) moves out of the search path.
    await service.db.$executeRawUnsafe(`ALTER SCHEMA public RENAME TO public_away`);
    try {
      expect(await refusal(() => client.search({ userId, query: "anything" }))).toEqual({ kind: "internal", code: "SEARCH_FAILED", details: [] });
      expect(await refusal(() => client.getSearchFilters({ userId }))).toEqual({ kind: "internal", code: "FILTERS_FAILED", details: [] });
      expect(await refusal(() => client.getSuggestions({ userId, query: "anything" }))).toEqual({
        kind: "internal",
        code: "SUGGESTIONS_FAILED",
        details: [],
      });
    } finally {
      await service.db.$executeRawUnsafe(`ALTER SCHEMA public_away RENAME TO public`);
    }
    expect((await client.search({ userId, query: "anything" })).totalCount).toBe(0);
  });
});
