/**
 * (m) The reference for (c): what a team would build instead of the gateway and the courses service — one Express
 * process (same Node, same express) that resolves the Bearer session with one SQL statement against the gateway's
 * database and lists the caller's courses with one statement against the courses database, answering the same JSON
 * body as the gateway's GET /api/courses. node-postgres pools with named (prepared) statements. No hops, no gRPC,
 * no tracing. Prints "listening <port>".
 *
 * Environment: GATEWAY_DATABASE_URL, COURSES_DATABASE_URL, PORT (0: any).
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { Pool } from "pg";

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

const app = express();
app.disable("x-powered-by");
app.get("/api/courses", (req: Request, res: Response, next: NextFunction) => {
  void (async () => {
    const header = req.headers.authorization ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!token) return unauthorized(res);
    const { rows: sessions } = await gatewayDb.query<{ userId: string; expiresAt: Date }>({ name: "session", text: SESSION, values: [token] });
    const session = sessions.at(0);
    if (!session || session.expiresAt.getTime() <= Date.now()) return unauthorized(res);
    const limit = intQuery(req.query.limit, 1, 100, 20);
    const offset = intQuery(req.query.offset, 0, 2_147_483_647, 0);
    if (limit === null || offset === null) return res.status(400).json({ success: false, error: "Invalid query", code: "VALIDATION_ERROR" });
    const { rows } = await coursesDb.query<CourseRow>({ name: "courses", text: COURSES, values: [session.userId, limit, offset] });
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

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
});
server.keepAliveTimeout = 65_000;
process.on("SIGTERM", () =>
  server.close(() => {
    void Promise.all([gatewayDb.end(), coursesDb.end()]).then(() => process.exit(0));
  }),
);
