import { pgTransactionalClient, type TransactionalClient } from "@study/db";
import { createEvent, PLATFORM_MIGRATIONS, type EventEnvelope } from "@study/events";
import { createLogger } from "@study/platform";
import { createTestDatabase } from "@study/testkit";
import { Pool } from "pg";

export const logger = createLogger("test", "silent");

/** A courses.course.created.v1 envelope; `n` makes names distinguishable. */
export function courseCreated(n: number | string, userId = "alice"): EventEnvelope {
  return createEvent("courses", userId, {
    $case: "courseCreated",
    value: { course: { id: `course-${n}`, name: `Course ${n}`, code: `C${n}` }, description: `about ${n}` },
  });
}

export function courseUpdated(n: number | string, userId = "alice"): EventEnvelope {
  return createEvent("courses", userId, {
    $case: "courseUpdated",
    value: { course: { id: `course-${n}`, name: `Course ${n}`, code: `C${n}` }, description: `about ${n}` },
  });
}

export function courseDeleted(n: number | string, userId = "alice"): EventEnvelope {
  return createEvent("courses", userId, { $case: "courseDeleted", value: { courseId: `course-${n}`, name: `Course ${n}` } });
}

export interface TestDb {
  url: string;
  pool: Pool;
  db: TransactionalClient;
  rows<T>(sql: string, ...values: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** A fresh database with the platform migrations (outbox, inbox), used through pgTransactionalClient. */
export async function testDatabase(prefix: string): Promise<TestDb> {
  const url = await createTestDatabase(prefix, [PLATFORM_MIGRATIONS]);
  const pool = new Pool({ connectionString: url, max: 8 });
  const db = pgTransactionalClient(pool);
  return {
    url,
    pool,
    db,
    rows: <T>(sql: string, ...values: unknown[]) => db.$queryRawUnsafe<T[]>(sql, ...values),
    close: () => pool.end(),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
