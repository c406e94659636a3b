/**
 * `npm run bench:read-path`: the courses service's hot read (a page of 20 courses and its total), three ways, in
 * one process against one embedded PostgreSQL, each call inside a span as a gRPC handler's would be, with the
 * service's tracing set-up (issue #16: "Prisma versus a lighter query path on hot reads — measure both"):
 *
 *   orm       Prisma's query builder: findMany + count (two statements)
 *   raw       Prisma's $queryRaw with the service's one statement (what the service ran before #16)
 *   prepared  the service's adapter now: the same statement as a node-postgres named statement on the pool
 *
 * For each: --calls sequential calls (latency without queueing, CPU per call) and --seconds of --concurrency
 * concurrent loops (calls/s, CPU per call), in two rounds so that warm-up and JIT show. The three answers are
 * checked equal first. --no-tracing runs without OpenTelemetry.
 *
 * Options: --calls=3000 --seconds=3 --concurrency=32 --courses=20 --no-tracing
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { startTelemetry, stopTelemetry } from "@study/platform/telemetry";
import { REPO_ROOT, option, percentile } from "./common";

const CALLS = option("calls", 3000);
const SECONDS = option("seconds", 3);
const CONCURRENCY = option("concurrency", 32);
const COURSES = option("courses", 20);
const TRACING = !process.argv.includes("--no-tracing");

const say = (line: string) => process.stdout.write(`[bench:read-path] ${line}\n`);

interface CoursePage {
  courses: Record<string, unknown>[];
  total: number;
}

/** What this bench uses of the courses service's generated Prisma client and of its repository (from dist/). */
interface CoursesPrisma {
  course: {
    findMany(query: object): Promise<Record<string, unknown>[]>;
    count(query: object): Promise<number>;
  };
  $queryRaw<T>(sql: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  $disconnect(): Promise<void>;
}
interface CourseReads {
  listOwned(userId: string, query: { limit: number; offset: number }): Promise<CoursePage>;
}

async function main(): Promise<void> {
  // Instrumentation patches pg and Prisma as they load: telemetry first, then every module that queries.
  if (TRACING) startTelemetry("bench-read-path");
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded after telemetry started, as in a service */
  const { trace } = require("@opentelemetry/api") as typeof import("@opentelemetry/api");
  const { createPool, ensureDatabase, migrate, prismaOptions } = require("@study/db") as typeof import("@study/db");
  const { startPostgres } = require("@study/testkit") as typeof import("@study/testkit");
  const { PrismaClient } = require(join(REPO_ROOT, "services/courses/dist/generated/prisma/client.js")) as {
    PrismaClient: new (options: ReturnType<typeof prismaOptions>) => CoursesPrisma;
  };
  const { PostgresCourseRepository } = require(join(REPO_ROOT, "services/courses/dist/adapters/db/postgres-course-repository.js")) as {
    PostgresCourseRepository: new (prisma: CoursesPrisma, reads: ReturnType<typeof createPool>) => CourseReads;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */

  const dataDir = mkdtempSync(join(tmpdir(), "study-read-path-"));
  const postgres = await startPostgres({ dataDir: join(dataDir, "pg"), fast: true });
  const url = postgres.databaseUrl("courses");
  await ensureDatabase(url);
  await migrate(url, [{ scope: "courses", directory: join(REPO_ROOT, "services/courses/prisma/migrations") }]);
  const pool = createPool(url, 10);
  const prisma = new PrismaClient(prismaOptions(pool));
  const repository = new PostgresCourseRepository(prisma, pool);
  try {
    const userId = "bench-user";
    for (let i = 0; i < COURSES; i++) {
      await pool.query(
        "INSERT INTO course (id, user_id, name, code, color, emoji, semester, created_at, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, '#22c55e', '📚', '2026-S1', now() - $4 * interval '1 second', now())",
        [userId, `Course ${i + 1}`, `BEN-${100 + i}`, i],
      );
    }
    const page = { limit: 20, offset: 0 };
    const paths: Record<string, () => Promise<CoursePage>> = {
      orm: async () => {
        const [courses, total] = await Promise.all([
          prisma.course.findMany({ where: { userId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: page.limit, skip: page.offset }),
          prisma.course.count({ where: { userId } }),
        ]);
        return { courses, total };
      },
      raw: async () => {
        const rows = await prisma.$queryRaw<(Record<string, unknown> & { total: bigint })[]>`
          SELECT id, user_id AS "userId", name, code, color, emoji, professor, semester, description,
                 created_at AS "createdAt", updated_at AS "updatedAt", count(*) OVER () AS total
          FROM course
          WHERE user_id = ${userId} AND (${null}::text IS NULL OR semester = ${null}::text)
          ORDER BY created_at DESC, id ASC
          LIMIT ${page.limit} OFFSET ${page.offset}`;
        return { courses: rows.map(({ total: _total, ...course }) => course), total: Number(rows[0]?.total ?? 0) };
      },
      prepared: () => repository.listOwned(userId, page),
    };

    const answers = await Promise.all(Object.values(paths).map((path) => path()));
    for (const answer of answers.slice(1)) {
      if (!isDeepStrictEqual(answer, answers[0])) throw new Error(`the paths answer differently:\n${JSON.stringify(answers, null, 1)}`);
    }
    say(`the three paths answer alike (${answers[0].courses.length} courses, total ${answers[0].total}); tracing ${TRACING ? "on" : "off"}`);

    const tracer = trace.getTracer("bench-read-path");
    const inSpan = (path: () => Promise<CoursePage>) =>
      tracer.startActiveSpan("ListCourses", async (span) => {
        try {
          return await path();
        } finally {
          span.end();
        }
      });
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };

    const lines = [
      "| round | path | sequential p50 ms | p90 ms | CPU ms per call | concurrent calls/s | CPU ms per call |",
      "|---|---|---:|---:|---:|---:|---:|",
    ];
    for (const round of [1, 2]) {
      for (const [name, path] of Object.entries(paths)) {
        for (let i = 0; i < 300; i++) await inSpan(path);
        const latencies = new Float64Array(CALLS);
        let cpu = process.cpuUsage();
        for (let i = 0; i < CALLS; i++) {
          const started = process.hrtime.bigint();
          await inSpan(path);
          latencies[i] = Number(process.hrtime.bigint() - started) / 1e6;
        }
        const sequentialCpu = cpuMs(cpu) / CALLS;
        latencies.sort();

        let calls = 0;
        cpu = process.cpuUsage();
        const started = process.hrtime.bigint();
        const until = started + BigInt(SECONDS * 1e9);
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (process.hrtime.bigint() < until) {
              await inSpan(path);
              calls++;
            }
          }),
        );
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const line = `| ${round} | ${name} | ${percentile(latencies, 50).toFixed(3)} | ${percentile(latencies, 90).toFixed(3)} | ${sequentialCpu.toFixed(3)} | ${Math.round(calls / seconds)} | ${(cpuMs(cpu) / calls).toFixed(3)} |`;
        lines.push(line);
        say(line);
      }
    }
    process.stdout.write(
      `\n${lines.join("\n")}\n\n(CPU of this process only: the client side of each path; PostgreSQL's share is alike for raw and prepared.)\n`,
    );
  } finally {
    await prisma.$disconnect();
    await pool.end();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await stopTelemetry();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[bench:read-path] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
