import { indexing, search as api } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher, type EventEnvelope } from "@study/events";
import { createClient } from "@study/grpc";
import { createLogger } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { createTestDatabase, eventually, startMeilisearchStandIn, testRabbitMqUrl, uniqueSuffix, type MeilisearchStandIn } from "@study/testkit";
import { refusal } from "@study/testkit/refusal";
import { CONSUMER_NAME } from "../../src/adapters/events/domain-events-consumer";
import type { SearchConfig } from "../../src/config";
import type { PrismaClient } from "../../src/generated/prisma/client";
import { searchService } from "../../src/service";

const { SearchableType } = indexing;
const at = (minutes: number) => new Date(Date.parse("2025-03-01T10:00:00.000Z") + minutes * 60_000);

/**
 * The composition with SEARCH_ENGINE=meilisearch, against the test kit's Meilisearch stand-in (the HTTP API the
 * official client speaks): the same events reach the same use cases, only the index differs.
 */
describe("search service with SEARCH_ENGINE=meilisearch", () => {
  let meilisearch: MeilisearchStandIn;
  let service: Awaited<ReturnType<typeof startService<PrismaClient, SearchConfig>>>;
  let client: ReturnType<typeof createClient<api.SearchServiceClient>>;
  let publisherConnection: AmqpConnection;
  let publisher: EventPublisher;
  let env: Record<string, string>;

  beforeAll(async () => {
    meilisearch = await startMeilisearchStandIn({ apiKey: "compose-test-key" });
    const databaseUrl = await createTestDatabase("search_meili", migrationSources(searchService));
    const exchange = `test.${uniqueSuffix()}`;
    env = { DATABASE_URL: databaseUrl, RABBITMQ_URL: testRabbitMqUrl(), GRPC_PORT: "0", EVENT_EXCHANGE: exchange, LOG_LEVEL: "silent" };
    service = await startService(searchService, {
      handleSignals: false,
      env: { ...env, SEARCH_ENGINE: "meilisearch", MEILISEARCH_URL: meilisearch.url, MEILISEARCH_API_KEY: meilisearch.apiKey },
    });
    client = createClient(api.SearchServiceClient, api.SearchServiceService, `127.0.0.1:${service.grpcPort}`);
    publisherConnection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await publisherConnection.start(5_000);
    publisher = new EventPublisher(publisherConnection, exchange);
  });

  afterAll(async () => {
    client?.close();
    await publisherConnection?.close();
    await service?.lifecycle.stop();
    await meilisearch?.close();
  });

  const publishAndWait = async (envelope: EventEnvelope) => {
    await publisher.publish([envelope]);
    await eventually(
      async () =>
        (await service.db.$queryRaw<unknown[]>`SELECT 1 FROM inbox_message WHERE consumer = ${CONSUMER_NAME} AND event_id = ${envelope.id}`).length >
        0,
    );
  };

  it("refuses to start without its URL and key, naming them", async () => {
    await expect(startService(searchService, { handleSignals: false, env: { ...env, SEARCH_ENGINE: "meilisearch" } })).rejects.toThrow(
      "Invalid configuration: MEILISEARCH_URL: is required when SEARCH_ENGINE=meilisearch; MEILISEARCH_API_KEY: is required when SEARCH_ENGINE=meilisearch",
    );
  });

  it("indexes from events into Meilisearch and answers from it, with course names; a deleted course takes its records", async () => {
    const userId = `user-${uniqueSuffix()}`;
    const courseId = `course-${uniqueSuffix()}`;
    const base = { userId, keywords: [], description: "", content: "", metadata: {}, createdAt: at(0), updatedAt: at(0) };
    const course: indexing.Searchable = { ...base, type: SearchableType.SEARCHABLE_TYPE_COURSE, id: courseId, courseId, title: "Oceanography" };
    await publishAndWait(
      createEvent("courses", userId, { $case: "courseCreated", value: { course: { id: courseId, name: course.title }, searchable: course } }),
    );
    const noteId = `note-${uniqueSuffix()}`;
    const note: indexing.Searchable = { ...base, type: SearchableType.SEARCHABLE_TYPE_NOTE, id: noteId, courseId, title: "Tides and currents" };
    await publishAndWait(
      createEvent("media", userId, {
        $case: "noteUpdated",
        value: { noteId, courseId, title: note.title, transcriptionStatus: "COMPLETED", userNotes: [], searchable: note },
      }),
    );
    expect(meilisearch.documents("search_records")).toHaveLength(2);

    const found = await client.search({ userId, query: "tides" });
    expect(found.results).toEqual([expect.objectContaining({ id: noteId, title: "Tides and currents", courseId, courseName: "Oceanography" })]);
    expect(found).toMatchObject({ totalCount: 1, resultsByType: { note: 1 } });
    expect((await client.search({ userId: `user-${uniqueSuffix()}`, query: "tides" })).totalCount).toBe(0);
    expect((await client.getSuggestions({ userId, query: "tid" })).suggestions.length).toBeGreaterThan(0);

    await publishAndWait(createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: course.title } }));
    expect(meilisearch.documents("search_records")).toEqual([]);
    expect((await client.search({ userId, query: "tides" })).totalCount).toBe(0);
  });

  it("answers SEARCH_FAILED and SUGGESTIONS_FAILED while Meilisearch is down; the filters still come from PostgreSQL", async () => {
    const userId = `user-${uniqueSuffix()}`;
    await meilisearch.close();
    expect(await refusal(() => client.search({ userId, query: "tides" }))).toEqual({ kind: "internal", code: "SEARCH_FAILED", details: [] });
    expect(await refusal(() => client.getSuggestions({ userId, query: "tides" }))).toEqual({
      kind: "internal",
      code: "SUGGESTIONS_FAILED",
      details: [],
    });
    expect((await client.getSearchFilters({ userId })).courses).toEqual([]);
  });
});
