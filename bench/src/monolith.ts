/**
 * (m) The reference for (c): what a team would build instead of the gateway and the courses service — one Express
 * process (same Node, same express) that resolves the Bearer session with one SQL statement against the gateway's
 * database and lists the caller's courses with one statement against the courses database, answering the same JSON
 * body as the gateway's GET /api/courses. node-postgres pools with named (prepared) statements. No hops, no gRPC,
 * no tracing. Prints "listening <port>".
 *
 * (mw) The reference for (w) POST /api/courses: the same session statement, the body validated with the gateway's
 * rules (zod), then one transaction that inserts the course and its event into an outbox table (the monolith's
 * own, `monolith_outbox`, which nothing relays: a monolith has no other service to tell), answering the same JSON.
 *
 * Environment: GATEWAY_DATABASE_URL, COURSES_DATABASE_URL, PORT (0: any).
 */
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { Pool } from "pg";
import { v7 as uuidv7 } from "uuid";
import { z } from "zod";
import { serveReference } from "./reference-server";

const gatewayDb = new Pool({ connectionString: process.env.GATEWAY_DATABASE_URL, max: 10 });
const coursesDb = new Pool({ connectionString: process.env.COURSES_DATABASE_URL, max: 10 });

const SESSION = `SELECT s."userId", s."expiresAt" FROM "session" s JOIN "user" u ON u.id = s."userId" WHERE s.token = $1`;
const COURSES = `
  SELECT id, user_id, name, code, color, emoji, professor, semester, description, created_at, updated_at, count(*) OVER () AS total
  FROM course WHERE user_id = $1 ORDER BY created_at DESC, id ASC LIMIT $2 OFFSET $3`;

interface CourseRow {
  id: string;
  user_id: string;
  name: string;
  code: string | null;
  color: string | null;
  emoji: string | null;
  professor: string | null;
  semester: string | null;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  total: string;
}

const unauthorized = (res: Response) => res.status(401).json({ success: false, error: "Authentication required", code: "UNAUTHORIZED" });

/** A whole number from the query, within bounds, or the default. */
function intQuery(value: unknown, min: number, max: number, fallback: number): number | null {
  if (value === undefined) return fallback;
  const parsed = typeof value === "string" && /^\d+$/u.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(parsed) && parsed >= min && parsed <= max ? parsed : null;
}

const text = (max: number) => z.string().max(max).nullable().optional();
const createBody = z.strictObject({
  name: z.string().trim().min(1).max(255),
  code: text(50),
  color: text(50),
  emoji: text(16),
  professor: text(255),
  semester: text(100),
  description: text(2000),
});
const INSERT_COURSE = `
  INSERT INTO course (id, user_id, name, code, color, emoji, professor, semester, description, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`;
const INSERT_EVENT = "INSERT INTO monolith_outbox (id, type, payload) VALUES ($1, $2, $3::jsonb)";
const outboxReady = coursesDb.query(
  "CREATE TABLE IF NOT EXISTS monolith_outbox (id text PRIMARY KEY, type text NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
);

/** The caller's user id from the Bearer session, or null (expired or unknown). */
async function sessionUser(req: Request): Promise<string | null> {
  const header = req.headers.authorization ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
  if (!token) return null;
  const { rows: sessions } = await gatewayDb.query<{ userId: string; expiresAt: Date }>({ name: "session", text: SESSION, values: [token] });
  const session = sessions.at(0);
  return session && session.expiresAt.getTime() > Date.now() ? session.userId : null;
}

const app = express();
app.disable("x-powered-by");
app.post("/api/courses", express.json({ limit: "1mb" }), (req: Request, res: Response, next: NextFunction) => {
  void (async () => {
    const userId = await sessionUser(req);
    if (!userId) return unauthorized(res);
    const parsed = createBody.safeParse(req.body);
    if (!parsed.success) return res.status(400).json({ success: false, error: "Invalid body", code: "VALIDATION_ERROR" });
    const now = new Date();
    const course = {
      id: uuidv7(),
      name: parsed.data.name,
      code: parsed.data.code ?? null,
      color: parsed.data.color ?? null,
      emoji: parsed.data.emoji ?? null,
      professor: parsed.data.professor ?? null,
      semester: parsed.data.semester ?? null,
      description: parsed.data.description ?? null,
      userId,
      createdAt: now,
      updatedAt: now,
    };
    await outboxReady;
    const client = await coursesDb.connect();
    try {
      await client.query("BEGIN");
      await client.query({
        name: "insert_course",
        text: INSERT_COURSE,
        values: [course.id, userId, course.name, course.code, course.color, course.emoji, course.professor, course.semester, course.description, now],
      });
      await client.query({
        name: "insert_event",
        text: INSERT_EVENT,
        values: [randomUUID(), "courses.course.created.v1", JSON.stringify({ course })],
      });
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    } finally {
      client.release();
    }
    res.status(201).json({ success: true, data: course, message: "Course created" });
  })().catch(next);
});
app.get("/api/courses", (req: Request, res: Response, next: NextFunction) => {
  void (async () => {
    const userId = await sessionUser(req);
    if (!userId) return unauthorized(res);
    const limit = intQuery(req.query.limit, 1, 100, 20);
    const offset = intQuery(req.query.offset, 0, 2_147_483_647, 0);
    if (limit === null || offset === null) return res.status(400).json({ success: false, error: "Invalid query", code: "VALIDATION_ERROR" });
    const { rows } = await coursesDb.query<CourseRow>({ name: "courses", text: COURSES, values: [userId, limit, offset] });
    const total = rows.length > 0 ? Number(rows[0].total) : 0;
    res.status(200).json({
      success: true,
      data: {
        courses: rows.map((row) => ({
          id: row.id,
          name: row.name,
          code: row.code,
          color: row.color,
          emoji: row.emoji,
          professor: row.professor,
          semester: row.semester,
          description: row.description,
          userId: row.user_id,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        })),
        pagination: { limit, offset, total, hasMore: offset + rows.length < total },
      },
      message: "Courses retrieved",
    });
  })().catch(next);
});

serveReference(app, [gatewayDb, coursesDb]);
