/**
 * (mg) The reference for GET /api/dashboard (issue #16): what a team would build instead of the gateway and the
 * four services the dashboard asks — one Express process (same Node, same express) that resolves the Bearer
 * session with one SQL statement against the gateway's database, then runs the statements the services run,
 * straight on each service's database, and answers the same JSON body as the gateway's GET /api/dashboard
 * (gateway/src/routes/dashboard.ts): the same keys in the same order, the same values, `degraded` too.
 *
 * Parallel where the gateway is: the session first; then calendar (CLASS and DEADLINE lists), media (the notes'
 * page and its count, as Prisma's findMany + count run), study (the three lists, each with its children, as
 * Prisma's `include` loads them: the services' lists return every card, question and section, which the
 * dashboard then drops) all at once; then the course summaries of what they returned in one statement.
 * node-postgres pools with named (prepared) statements. No hops, no gRPC, no tracing. Prints "listening <port>".
 *
 * Environment: GATEWAY_DATABASE_URL, CALENDAR_DATABASE_URL, MEDIA_DATABASE_URL, STUDY_DATABASE_URL,
 * COURSES_DATABASE_URL, PORT (0: any).
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { Pool, type QueryResultRow } from "pg";
import { isTimeZone as knownZone, todayIn } from "@study/platform/zoned-time";
import { serveReference } from "./reference-server";

const pool = (url: string | undefined) => new Pool({ connectionString: url, max: 10 });
const gatewayDb = pool(process.env.GATEWAY_DATABASE_URL);
const calendarDb = pool(process.env.CALENDAR_DATABASE_URL);
const mediaDb = pool(process.env.MEDIA_DATABASE_URL);
const studyDb = pool(process.env.STUDY_DATABASE_URL);
const coursesDb = pool(process.env.COURSES_DATABASE_URL);

const MAX_CLASSES = 3;
const MAX_DEADLINES = 3;
const MAX_NOTES = 10;
const MAX_ASSETS = 10;
const SERVICES = ["calendar", "media", "study", "courses"] as const;
type PartService = (typeof SERVICES)[number];

// ---------------------------------------------------------------------------------------------- the statements

/** The gateway's session statement (gateway.session_with_user): the session and its user's name. */
const SESSION = `SELECT s."userId", s."expiresAt", u.name AS "userName" FROM "session" s JOIN "user" u ON u.id = s."userId" WHERE s.token = $1`;

/** Calendar's ListEvents (PrismaCalendarEventRepository.listOwned with startsFrom and eventType): page and total. */
const EVENTS = `
  SELECT id, user_id AS "userId", title, description, start_date AS "startDate", end_date AS "endDate",
    event_type::text AS "eventType", location, priority::text AS "priority", color, course_id AS "courseId",
    google_event_id AS "googleEventId", google_calendar_id AS "googleCalendarId", reminder_minutes AS "reminderMinutes",
    all_day_date AS "allDayDate", created_at AS "createdAt", updated_at AS "updatedAt", count(*) OVER () AS total
  FROM calendar_event
  WHERE user_id = $1 AND start_date >= $2 AND event_type = $3::"EventType"
  ORDER BY start_date ASC, id ASC
  LIMIT $4 OFFSET 0`;

/** Media's ListNotes (PrismaNoteRepository.listOwned): every column of the page, newest first, and the count. */
const NOTES = `
  SELECT id, user_id AS "userId", course_id AS "courseId", title, content, summary, audio_url AS "audioUrl",
    audio_storage_key AS "audioStorageKey", transcription_status::text AS "transcriptionStatus", metadata,
    user_notes AS "userNotes", created_at AS "createdAt", updated_at AS "updatedAt"
  FROM note WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET 0`;
const NOTES_COUNT = `SELECT count(*) AS total FROM note WHERE user_id = $1`;

/** The columns the three study tables share (originColumns), newest first then id ascending (NEWEST_FIRST). */
const MATERIAL = `id, user_id AS "userId", course_id AS "courseId", note_id AS "noteId", note_title AS "noteTitle",
  note_ids AS "noteIds", document_ids AS "documentIds", content_hash AS "contentHash", title, description,
  difficulty::text AS difficulty, generator, created_at AS "createdAt", updated_at AS "updatedAt"`;
const SOURCE = `source_note_id AS "sourceNoteId", source_start_time AS "sourceStartTime", source_document_id AS "sourceDocumentId",
  source_page AS "sourcePage"`;
const NEWEST = "ORDER BY created_at DESC, id ASC LIMIT $2";
const SETS = `SELECT ${MATERIAL} FROM flashcard_set WHERE user_id = $1 ${NEWEST}`;
const CARDS = `
  SELECT id, flashcard_set_id AS "flashcardSetId", user_id AS "userId", front, back, position, ${SOURCE}, state::text AS state, due,
    stability, difficulty, elapsed_days AS "elapsedDays", scheduled_days AS "scheduledDays", learning_steps AS "learningSteps",
    reps, lapses, last_review AS "lastReview"
  FROM flashcard WHERE flashcard_set_id = ANY($1::uuid[]) ORDER BY position ASC`;
const QUIZZES = `SELECT ${MATERIAL} FROM quiz WHERE user_id = $1 ${NEWEST}`;
const QUESTIONS = `
  SELECT id, quiz_id AS "quizId", question, type, options, correct_answer AS "correctAnswer", explanation, position, ${SOURCE}
  FROM question WHERE quiz_id = ANY($1::uuid[]) ORDER BY position ASC`;
const GUIDES = `
  SELECT ${MATERIAL}, markdown, overview, key_terms AS "keyTerms", learning_objectives AS "learningObjectives", study_tips AS "studyTips"
  FROM study_guide WHERE user_id = $1 ${NEWEST}`;
const SECTIONS = `
  SELECT id, study_guide_id AS "studyGuideId", title, content, position, subsections, ${SOURCE}
  FROM study_section WHERE study_guide_id = ANY($1::uuid[]) ORDER BY position ASC`;

/** Courses' BatchGetCourses (courses.find_many_owned). */
const COURSES = `
  SELECT id, user_id AS "userId", name, code, color, emoji, professor, semester, description,
    created_at AS "createdAt", updated_at AS "updatedAt"
  FROM course WHERE id = ANY($2::uuid[]) AND user_id = $1`;

// ---------------------------------------------------------------------------------------------- rows

interface EventRow {
  id: string;
  userId: string;
  title: string;
  description: string | null;
  startDate: Date;
  endDate: Date | null;
  eventType: string;
  location: string | null;
  priority: string;
  color: string;
  courseId: string | null;
  googleEventId: string | null;
  googleCalendarId: string | null;
  reminderMinutes: number;
  allDayDate: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface NoteRow {
  id: string;
  userId: string;
  courseId: string;
  content: string | null;
  audioUrl: string | null;
  transcriptionStatus: string;
  metadata: unknown;
  createdAt: Date;
  updatedAt: Date;
}

interface MaterialRow {
  id: string;
  courseId: string;
  title: string;
  description: string | null;
  difficulty: string;
  createdAt: Date;
  updatedAt: Date;
  markdown?: string;
}

interface CourseRow {
  id: string;
  name: string;
  code: string | null;
  color: string | null;
  emoji: string | null;
}

interface Asset extends MaterialRow {
  type: "flashcard_set" | "quiz" | "study_guide";
}

/** One named statement on a pool: its rows. */
async function rows<R extends QueryResultRow>(db: Pool, name: string, text: string, values: unknown[]): Promise<R[]> {
  return (await db.query<R>({ name, text, values })).rows;
}

/** A study list as the service reads it: the newest `limit`, then the children of those (Prisma's `include`). */
async function materials(header: [name: string, text: string], children: [name: string, text: string], userId: string): Promise<MaterialRow[]> {
  const found = await rows<MaterialRow>(studyDb, header[0], header[1], [userId, MAX_ASSETS]);
  if (found.length > 0) await rows(studyDb, children[0], children[1], [found.map((row) => row.id)]);
  return found;
}

// ---------------------------------------------------------------------------------------------- today in a zone

/** The gateway's own zone check and day arithmetic (its built module): the same work on both sides. */
const isTimeZone = (zone: unknown): zone is string => typeof zone === "string" && zone.length <= 64 && knownZone(zone);

// ---------------------------------------------------------------------------------------------- the answer

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ZONE_MESSAGE = "must be an IANA time zone (e.g. Europe/Berlin)";

function eventJson(event: EventRow, course: CourseRow | undefined, user: { id: string; name: string }) {
  return {
    id: event.id,
    title: event.title,
    description: event.description,
    startDate: event.startDate.toISOString(),
    endDate: event.endDate ? event.endDate.toISOString() : null,
    eventType: event.eventType,
    location: event.location,
    priority: event.priority,
    color: event.color,
    courseId: event.courseId,
    googleEventId: event.googleEventId,
    googleCalendarId: event.googleCalendarId,
    reminderMinutes: event.reminderMinutes,
    allDayDate: event.allDayDate,
    userId: event.userId,
    createdAt: event.createdAt.toISOString(),
    updatedAt: event.updatedAt.toISOString(),
    course: course ? { id: course.id, name: course.name, code: course.code } : null,
    user: { id: user.id, name: user.name },
  };
}

/** The video link of a note: media keeps `originalUrl` only as a string, and the gateway shows it for videos only. */
function videoUrl(metadata: unknown): string | null {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return null;
  const { source, originalUrl } = metadata as { source?: unknown; originalUrl?: unknown };
  return source === "video" && typeof originalUrl === "string" ? originalUrl : null;
}

function noteJson(note: NoteRow) {
  return {
    id: note.id,
    content: note.content,
    transcript: note.content,
    audioPath: note.audioUrl,
    videoUrl: videoUrl(note.metadata),
    status: note.transcriptionStatus,
    courseId: note.courseId,
    userId: note.userId,
    createdAt: note.createdAt.toISOString(),
    updatedAt: note.updatedAt.toISOString(),
  };
}

function assetJson(asset: Asset, course: CourseRow | undefined) {
  return {
    id: asset.id,
    title: asset.title,
    description: asset.description,
    content: asset.type === "study_guide" ? (asset.markdown ?? null) : null,
    type: asset.type,
    difficulty: asset.difficulty,
    courseId: asset.courseId || null,
    course: course ? { id: course.id, name: course.name, color: course.color, emoji: course.emoji } : null,
    createdAt: asset.createdAt.toISOString(),
    updatedAt: asset.updatedAt.toISOString(),
  };
}

/** The newest MAX_ASSETS of the three kinds together: newest first, ties by id ascending (the study service's order). */
function newestAssets(sets: MaterialRow[], quizzes: MaterialRow[], guides: MaterialRow[]): Asset[] {
  const assets: Asset[] = [
    ...sets.map((set) => ({ ...set, type: "flashcard_set" as const })),
    ...quizzes.map((quiz) => ({ ...quiz, type: "quiz" as const })),
    ...guides.map((guide) => ({ ...guide, type: "study_guide" as const })),
  ];
  const time = (asset: Asset) => asset.createdAt.getTime();
  return assets.sort((a, b) => time(b) - time(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, MAX_ASSETS);
}

const unauthorized = (res: Response) => res.status(401).json({ success: false, error: "Authentication required", code: "UNAUTHORIZED" });
const invalid = (res: Response, error: string, field: string) =>
  res.status(400).json({ success: false, error, code: "VALIDATION_ERROR", details: [{ field, message: ZONE_MESSAGE }] });

/** The caller (id and name) from the Bearer session, or null (expired or unknown). */
async function sessionUser(req: Request): Promise<{ id: string; name: string } | null> {
  const header = req.headers.authorization ?? "";
  const token = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : "";
  if (!token) return null;
  const [session] = await rows<{ userId: string; expiresAt: Date; userName: string }>(gatewayDb, "session", SESSION, [token]);
  return session && session.expiresAt.getTime() > Date.now() ? { id: session.userId, name: session.userName } : null;
}

const app = express();
app.disable("x-powered-by");
app.get("/api/dashboard", (req: Request, res: Response, next: NextFunction) => {
  void (async () => {
    const user = await sessionUser(req);
    if (!user) return unauthorized(res);
    // As the gateway: the query is checked before the handler reads the header.
    const tz: unknown = req.query.tz;
    if (tz !== undefined && !isTimeZone(tz)) return invalid(res, "Invalid query", "tz");
    const header = req.get("x-timezone");
    if (header !== undefined && !isTimeZone(header)) return invalid(res, "Invalid time zone", "x-timezone");
    const zone = tz ?? header ?? "UTC";
    const now = new Date();
    const today = todayIn(zone, now);
    const degraded = new Set<PartService>();
    /** The part's value, or its fallback with the service marked degraded when a statement failed. */
    const part = async <T>(service: PartService, work: Promise<T>, fallback: T): Promise<T> => {
      try {
        return await work;
      } catch (error) {
        degraded.add(service);
        process.stderr.write(`dashboard part degraded (${service}): ${error instanceof Error ? error.message : String(error)}\n`);
        return fallback;
      }
    };
    // The page's total (count(*) over ()) comes with each row, as in the service; the dashboard does not show it.
    const events = (type: string, from: Date, limit: number) => rows<EventRow>(calendarDb, "events", EVENTS, [user.id, from, type, limit]);

    const [classes, deadlines, notes, assets] = await Promise.all([
      part(
        "calendar",
        events("CLASS", today.start, MAX_CLASSES).then((found) => found.filter((event) => event.startDate < today.end)),
        [],
      ),
      part("calendar", events("DEADLINE", now, MAX_DEADLINES), []),
      part(
        "media",
        Promise.all([rows<NoteRow>(mediaDb, "notes", NOTES, [user.id, MAX_NOTES]), rows(mediaDb, "notes_count", NOTES_COUNT, [user.id])]).then(
          ([page]) => page,
        ),
        [],
      ),
      part(
        "study",
        // The newest MAX_ASSETS of each kind hold the newest MAX_ASSETS of all three together.
        Promise.all([
          materials(["sets", SETS], ["cards", CARDS], user.id),
          materials(["quizzes", QUIZZES], ["questions", QUESTIONS], user.id),
          materials(["guides", GUIDES], ["sections", SECTIONS], user.id),
        ]).then(([sets, quizzes, guides]) => newestAssets(sets, quizzes, guides)),
        [],
      ),
    ]);

    // The course summaries: one statement for the distinct ids that can name a course (BatchGetCourses).
    const ids = [
      ...new Set(
        [...classes, ...deadlines].flatMap((event) => (event.courseId ? [event.courseId] : [])).concat(assets.map((asset) => asset.courseId)),
      ),
    ].filter((id) => id && UUID.test(id));
    const courses = ids.length
      ? await part(
          "courses",
          rows<CourseRow>(coursesDb, "courses", COURSES, [user.id, ids]).then((found) => new Map(found.map((course) => [course.id, course]))),
          new Map<string, CourseRow>(),
        )
      : new Map<string, CourseRow>();
    const eventOf = (event: EventRow) => eventJson(event, event.courseId ? courses.get(event.courseId) : undefined, user);
    res.status(200).json({
      todaysClasses: classes.map(eventOf),
      upcomingDeadlines: deadlines.map(eventOf),
      recentNotes: notes.map(noteJson),
      recentStudyAssets: assets.map((asset) => assetJson(asset, courses.get(asset.courseId))),
      degraded: SERVICES.filter((service) => degraded.has(service)),
    });
  })().catch(next);
});

serveReference(app, [gatewayDb, calendarDb, mediaDb, studyDb, coursesDb]);
