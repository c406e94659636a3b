import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { indexing, search as api } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher } from "@study/events";
import { bindUnaryHandlers, createClient, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { createLogger } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { createTestDatabase, eventually, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { CONSUMER_NAME } from "../../src/adapters/events/domain-events-consumer";
import type { SearchConfig } from "../../src/config";
import type { PrismaClient } from "../../src/generated/prisma/client";
import { searchService } from "../../src/service";

const { SearchableType } = indexing;
const REPO_ROOT = resolve(__dirname, "../../../..");
const REINDEX = "services/search/dist/reindex.js";
const created = new Date("2025-03-01T10:00:00.000Z");

/** An owner's SearchableSourceService over a list, paged by offset like the real ones page by key. */
async function fakeSource(records: indexing.Searchable[], requests: indexing.ListSearchablesRequest[]): Promise<RunningGrpcServer> {
  const logger = createLogger("fake-source", "silent");
  const implementation = bindUnaryHandlers(logger, indexing.SearchableSourceServiceService, {
    listSearchables: async (request) => {
      requests.push(request);
      const all = records.filter((record) => request.userId === undefined || record.userId === request.userId);
      const start = Number(request.pageToken || "0");
      const end = start + (request.pageSize || 500);
      return { searchables: all.slice(start, end), nextPageToken: end < all.length ? String(end) : "" };
    },
  });
  return startGrpcServer({ host: "127.0.0.1", port: 0, services: [{ definition: indexing.SearchableSourceServiceService, implementation }], logger });
}

function searchable(userId: string, type: indexing.SearchableType, id: string, title: string): indexing.Searchable {
  return { type, id, userId, title, keywords: [], description: "", content: "", metadata: {}, createdAt: created, updatedAt: created };
}

/** Runs the built command; resolves with its exit code and output. */
function runReindex(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [REINDEX, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

describe("the reindex command (dist/reindex.js) against the owners' SearchableSourceService", () => {
  let service: Awaited<ReturnType<typeof startService<PrismaClient, SearchConfig>>>;
  let client: ReturnType<typeof createClient<api.SearchServiceClient>>;
  let publisherConnection: AmqpConnection;
  let publisher: EventPublisher;
  const sources: RunningGrpcServer[] = [];
  const requests: Record<string, indexing.ListSearchablesRequest[]> = {
    courses: [],
    media: [],
    study: [],
    calendar: [],
    documents: [],
    chat: [],
  };
  let env: Record<string, string>;
  const alice = `user-${uniqueSuffix()}`;
  const bob = `user-${uniqueSuffix()}`;
  const courseId = `course-${uniqueSuffix()}`;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("search_reindex", migrationSources(searchService));
    const exchange = `test.${uniqueSuffix()}`;
    service = await startService(searchService, {
      handleSignals: false,
      env: { DATABASE_URL: databaseUrl, RABBITMQ_URL: testRabbitMqUrl(), GRPC_PORT: "0", EVENT_EXCHANGE: exchange, LOG_LEVEL: "silent" },
    });
    client = createClient(api.SearchServiceClient, api.SearchServiceService, `127.0.0.1:${service.grpcPort}`);
    publisherConnection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await publisherConnection.start(5_000);
    publisher = new EventPublisher(publisherConnection, exchange);

    const course = {
      ...searchable(alice, SearchableType.SEARCHABLE_TYPE_COURSE, courseId, "Marine biology"),
      courseId,
      metadata: { semester: "Spring 2026" },
    };
    // 1 200 notes of Alice's: three pages of 500.
    const notes = Array.from({ length: 1_200 }, (_, i) => ({
      ...searchable(alice, SearchableType.SEARCHABLE_TYPE_NOTE, `note-${i}-${uniqueSuffix()}`, `Plankton lecture ${i}`),
      courseId,
    }));
    const bobs = [searchable(bob, SearchableType.SEARCHABLE_TYPE_QUIZ, `quiz-${uniqueSuffix()}`, "Plankton quiz")];
    const events = [searchable(alice, SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT, `event-${uniqueSuffix()}`, "Tide pool excursion")];
    const documents = [
      { ...searchable(alice, SearchableType.SEARCHABLE_TYPE_DOCUMENT, `document-${uniqueSuffix()}`, "Kelp forest handout"), courseId },
    ];
    const chats = [
      { ...searchable(alice, SearchableType.SEARCHABLE_TYPE_CHAT_SESSION, `chat-${uniqueSuffix()}`, "Questions on seagrass"), courseId },
    ];
    const lists = { courses: [course], media: notes, study: bobs, calendar: events, documents, chat: chats };
    env = { DATABASE_URL: databaseUrl, LOG_LEVEL: "silent" };
    for (const [name, records] of Object.entries(lists)) {
      const server = await fakeSource(records, requests[name]);
      sources.push(server);
      env[`${name.toUpperCase()}_GRPC_ADDRESS`] = `127.0.0.1:${server.port}`;
    }
  });

  afterAll(async () => {
    client.close();
    await publisherConnection.close();
    await Promise.all(sources.map((source) => source.shutdown()));
    await service.lifecycle.stop();
  });

  it("rebuilds every user's index from the sources, with progress lines, and removes what they no longer list", async () => {
    // A note the index holds but no source lists any more (its delete event was lost).
    const stale = searchable(alice, SearchableType.SEARCHABLE_TYPE_NOTE, `stale-${uniqueSuffix()}`, "Plankton (deleted long ago)");
    const event = createEvent("media", alice, {
      $case: "noteUpdated",
      value: { noteId: stale.id, courseId: "", title: stale.title, transcriptionStatus: "COMPLETED", userNotes: [], searchable: stale },
    });
    await publisher.publish([event]);
    await eventually(
      async () =>
        (await service.db.$queryRaw<unknown[]>`SELECT 1 FROM inbox_message WHERE consumer = ${CONSUMER_NAME} AND event_id = ${event.id}`).length > 0,
    );
    expect((await client.search({ userId: alice, query: "deleted" })).totalCount).toBe(1);

    const { code, stdout, stderr } = await runReindex([], env);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe("reindex of every user from courses, media, study, calendar, documents, chat");
    expect(lines.filter((line) => line.startsWith("media: "))).toEqual([
      expect.stringMatching(/^media: 500 listed, 500 indexed, 0 skipped \(\d+ items\/s\) …$/),
      expect.stringMatching(/^media: 1000 listed, 1000 indexed, 0 skipped \(\d+ items\/s\) …$/),
      expect.stringMatching(/^media: 1200 listed, 1200 indexed, 0 skipped \(\d+ items\/s\) done$/),
    ]);
    expect(lines.at(-1)).toMatch(/^reindex done: 1205 listed, 1205 indexed, 0 skipped, 1 removed in [\d.]+ s \(\d+ items\/s\)$/);
    expect(requests.media.every((request) => request.userId === undefined && request.pageSize === 500)).toBe(true);

    const found = await client.search({ userId: alice, query: "plankton", limit: "5" });
    expect(found.totalCount).toBe(1_200);
    expect(found.results[0]).toMatchObject({ courseId, courseName: "Marine biology" });
    expect((await client.search({ userId: alice, query: "deleted" })).totalCount).toBe(0);
    expect((await client.search({ userId: bob, query: "plankton" })).results.map((r) => r.title)).toEqual(["Plankton quiz"]);
    expect((await client.search({ userId: alice, query: "excursion" })).results).toEqual([
      expect.objectContaining({ type: SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT, title: "Tide pool excursion" }),
    ]);
    expect((await client.search({ userId: alice, query: "kelp" })).results).toEqual([
      expect.objectContaining({ type: SearchableType.SEARCHABLE_TYPE_DOCUMENT, title: "Kelp forest handout" }),
    ]);
    expect((await client.search({ userId: alice, query: "seagrass" })).results).toEqual([
      expect.objectContaining({ type: SearchableType.SEARCHABLE_TYPE_CHAT_SESSION, title: "Questions on seagrass", courseName: "Marine biology" }),
    ]);
    expect((await client.getSearchFilters({ userId: alice })).courses).toEqual([
      { value: courseId, label: "Marine biology", semester: "Spring 2026" },
    ]);

    // Run again: nothing is older than what the index holds, so everything is written again and nothing removed.
    const again = await runReindex([], env);
    expect(again.stdout.trim().split("\n").at(-1)).toMatch(/^reindex done: 1205 listed, 1205 indexed, 0 skipped, 0 removed/);
  });

  it("rebuilds one user's records with --user, asking every source for that user only", async () => {
    for (const list of Object.values(requests)) list.length = 0;
    const { code, stdout } = await runReindex(["--user", bob], env);
    expect(code).toBe(0);
    expect(stdout.trim().split("\n")[0]).toBe(`reindex of user ${bob} from courses, media, study, calendar, documents, chat`);
    expect(stdout.trim().split("\n").at(-1)).toMatch(/^reindex done: 1 listed, 1 indexed, 0 skipped, 0 removed/);
    expect(
      Object.values(requests)
        .flat()
        .map((request) => request.userId),
    ).toEqual([bob, bob, bob, bob, bob, bob]);
  });

  it("exits with 1 and a one-line reason on a bad argument, a missing setting or an unreachable source", async () => {
    const badArgument = await runReindex(["--users", "x"], env);
    expect(badArgument.code).toBe(1);
    expect(badArgument.stderr).toContain("Usage: node services/search/dist/reindex.js [--user <user id>]");

    const { MEDIA_GRPC_ADDRESS: _media, ...withoutMedia } = env;
    const missing = await runReindex([], withoutMedia);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 1,
      stderr: "Invalid configuration: MEDIA_GRPC_ADDRESS: is required but not set\n",
    });

    const unreachable = await runReindex([], { ...env, STUDY_GRPC_ADDRESS: "127.0.0.1:1" });
    expect({ code: unreachable.code, stderr: unreachable.stderr }).toEqual({
      code: 1,
      stderr: "reindex failed: listing the searchables of study failed: The SearchableSourceService service is unavailable\n",
    });
  });
});
