import { calendar, media, study, type common } from "@study/contracts";
import { AppError, type Logger } from "@study/platform";
import { isTimeZone, todayIn } from "@study/platform/zoned-time";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { errorEnvelope, route, type RouteSpec } from "../http/api";
import { calendarEventJson, calendarEventSchema } from "./calendar";
import { courseEmbedSchema, courseJson, coursesById, iso } from "./shared/mappers";
import { transcriptionStatus } from "./shared/media-json";
import { difficulty } from "./study-material";

/*
 * GET /api/dashboard composes four services in one parallel fan-out, each call with its own short deadline. A
 * part whose service fails or times out is answered empty and its service named in `degraded`: the dashboard
 * stays usable with one service down instead of failing whole. The course embeds are read afterwards in one
 * batch (they need the ids the fan-out returned); without the courses service the items come without course.
 */

/** Deadline of each downstream call of the dashboard: a slow service costs its part, not the whole page. */
export const DASHBOARD_CALL_DEADLINE_MS = 2_000;
const MAX_CLASSES = 3;
const MAX_DEADLINES = 3;
const MAX_NOTES = 10;
const MAX_ASSETS = 10;

const SERVICES = ["calendar", "media", "study", "courses"] as const;
type PartService = (typeof SERVICES)[number];

const timeZone = z.string().max(64).refine(isTimeZone, "must be an IANA time zone (e.g. Europe/Berlin)");
const dashboardQuery = z.object({
  tz: timeZone.optional().describe("IANA time zone that defines 'today' (else the x-timezone header, else UTC)"),
});

const nullableString = z.string().nullable();
const dashboardNoteSchema = z
  .object({
    id: z.string(),
    content: nullableString.describe("The transcript; null until the import completed"),
    transcript: nullableString.describe("The transcript (the same text as content; the spec names both)"),
    audioPath: nullableString.describe("Where the note's audio is served"),
    videoUrl: nullableString.describe("The video link the note was imported from, null for other sources"),
    status: z.enum(transcriptionStatus.names).describe("Transcription status"),
    courseId: z.string(),
    userId: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "DashboardNote" });
const ASSET_TYPES = ["flashcard_set", "quiz", "study_guide"] as const;
const dashboardAssetSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: nullableString,
    content: nullableString.describe("Study guides: the guide as markdown; null for the other types"),
    type: z.enum(ASSET_TYPES),
    difficulty: z.enum(difficulty.names).nullable(),
    courseId: nullableString,
    course: courseEmbedSchema.nullable().describe("Null when the course is gone or the courses service did not answer"),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "DashboardStudyAsset" });
const dashboardSchema = z
  .object({
    todaysClasses: z.array(calendarEventSchema).describe(`CLASS events starting today in the time zone, ascending, at most ${MAX_CLASSES}`),
    upcomingDeadlines: z.array(calendarEventSchema).describe(`DEADLINE events starting from now, ascending, at most ${MAX_DEADLINES}`),
    recentNotes: z.array(dashboardNoteSchema).describe(`The newest notes, at most ${MAX_NOTES}`),
    recentStudyAssets: z.array(dashboardAssetSchema).describe(`The newest flashcard sets, quizzes and study guides together, at most ${MAX_ASSETS}`),
    degraded: z
      .array(z.enum(SERVICES))
      .describe("Services that failed or timed out; their parts are empty (course embeds null for courses). Empty when all answered"),
  })
  .meta({ id: "Dashboard" });

function noteJson(note: media.Note) {
  return {
    id: note.id,
    content: note.content ?? null,
    transcript: note.content ?? null,
    audioPath: note.audioUrl ?? null,
    videoUrl: note.metadata?.source === "video" ? (note.metadata.originalUrl ?? null) : null,
    status: transcriptionStatus.toRest(note.transcriptionStatus),
    courseId: note.courseId,
    userId: note.userId,
    createdAt: iso(note.createdAt, "createdAt of a note"),
    updatedAt: iso(note.updatedAt, "updatedAt of a note"),
  };
}

interface Asset {
  type: (typeof ASSET_TYPES)[number];
  id: string;
  title: string;
  description?: string;
  content?: string;
  difficulty: study.Difficulty;
  courseId: string;
  createdAt?: Date;
  updatedAt?: Date;
}

const assetJson = (asset: Asset, course: common.CourseSummary | undefined) => ({
  id: asset.id,
  title: asset.title,
  description: asset.description ?? null,
  content: asset.content ?? null,
  type: asset.type,
  // Material without a level has UNSPECIFIED (0): null.
  difficulty: asset.difficulty === study.Difficulty.DIFFICULTY_UNSPECIFIED ? null : difficulty.toRest(asset.difficulty),
  courseId: asset.courseId || null,
  course: courseJson(course),
  createdAt: iso(asset.createdAt, `createdAt of a ${asset.type}`),
  updatedAt: iso(asset.updatedAt, `updatedAt of a ${asset.type}`),
});

export function dashboardRoutes(clients: ServiceClients, logger: Logger, deadlineMs = DASHBOARD_CALL_DEADLINE_MS): RouteSpec[] {
  const options = { deadlineMs };
  return [
    route({
      method: "get",
      path: "/api/dashboard",
      tag: "Dashboard",
      summary: "The caller's dashboard: today's classes, upcoming deadlines, recent notes and study material",
      description:
        "A plain object (no envelope). 'Today' is the calendar day in the time zone of the `tz` query parameter or " +
        "the `x-timezone` header (an IANA name; an invalid one is a 400), UTC when neither is given. Each service is " +
        "asked in parallel with its own deadline; a part whose service fails or times out is empty and the service " +
        "is named in `degraded` (the answer is still 200).",
      auth: true,
      query: dashboardQuery,
      responses: {
        200: { description: "The dashboard", schema: dashboardSchema },
        400: { description: "tz or x-timezone is not an IANA time zone (VALIDATION_ERROR)", schema: errorEnvelope },
      },
      async handler({ userId, user, query, req, res }) {
        const header = req.get("x-timezone");
        const parsedHeader = header === undefined ? undefined : timeZone.safeParse(header);
        if (parsedHeader && !parsedHeader.success) {
          throw AppError.validation("Invalid time zone", [{ field: "x-timezone", message: "must be an IANA time zone (e.g. Europe/Berlin)" }]);
        }
        const zone = query.tz ?? parsedHeader?.data ?? "UTC";
        const now = new Date();
        const today = todayIn(zone, now);
        const degraded = new Set<PartService>();
        /** The part's value, or its fallback with the service marked degraded when the call failed or timed out. */
        const part = async <T>(service: PartService, call: Promise<T>, fallback: T): Promise<T> => {
          try {
            return await call;
          } catch (error) {
            degraded.add(service);
            logger.warn({ err: error, service, userId }, "dashboard part degraded");
            return fallback;
          }
        };
        const listEvents = (eventType: calendar.EventType, startsFrom: Date, limit: number) =>
          clients.calendar.listEvents({ userId, page: { limit, offset: 0 }, startsFrom, eventType }, options).then((reply) => reply.events);

        const [classes, deadlines, notes, assets] = await Promise.all([
          // ListEvents' ends_before bounds the end, not the start (a class from 23:00 to 01:00 started today): the
          // upper bound on the start is applied here. The list is ascending by start, so the first 3 from the
          // start of today that start before tomorrow are exactly today's first 3.
          part(
            "calendar",
            listEvents(calendar.EventType.EVENT_TYPE_CLASS, today.start, MAX_CLASSES).then((events) =>
              events.filter((event) => event.startDate !== undefined && event.startDate < today.end),
            ),
            [],
          ),
          part("calendar", listEvents(calendar.EventType.EVENT_TYPE_DEADLINE, now, MAX_DEADLINES), []),
          part(
            "media",
            clients.media.listNotes({ userId, page: { limit: MAX_NOTES, offset: 0 } }, options).then((reply) => reply.notes),
            [],
          ),
          part(
            "study",
            // The newest MAX_ASSETS of each kind hold the newest MAX_ASSETS of all three together.
            Promise.all([
              clients.study.listFlashcardSets({ userId, limit: MAX_ASSETS }, options),
              clients.study.listQuizzes({ userId, limit: MAX_ASSETS }, options),
              clients.study.listStudyGuides({ userId, limit: MAX_ASSETS }, options),
            ]).then(([sets, quizzes, guides]) => newestAssets(sets.flashcardSets, quizzes.quizzes, guides.studyGuides)),
            [],
          ),
        ]);

        const courseIds = [...classes, ...deadlines].flatMap((event) => (event.courseId ? [event.courseId] : []));
        courseIds.push(...assets.map((asset) => asset.courseId));
        const courses = courseIds.length
          ? await part("courses", coursesById(clients, userId, courseIds, options), new Map<string, common.CourseSummary>())
          : new Map<string, common.CourseSummary>();
        const eventJson = (event: calendar.CalendarEvent) => calendarEventJson(event, event.courseId ? courses.get(event.courseId) : undefined, user);
        res.status(200).json({
          todaysClasses: classes.map(eventJson),
          upcomingDeadlines: deadlines.map(eventJson),
          recentNotes: notes.map(noteJson),
          recentStudyAssets: assets.map((asset) => assetJson(asset, courses.get(asset.courseId))),
          degraded: SERVICES.filter((service) => degraded.has(service)),
        });
      },
    }),
  ];
}

/**
 * The newest MAX_ASSETS of the three kinds together: newest first, ties by id ascending — the study service's own
 * order, so that its limited lists always hold the merged list's first MAX_ASSETS.
 */
function newestAssets(sets: study.FlashcardSet[], quizzes: study.Quiz[], guides: study.StudyGuide[]): Asset[] {
  const assets: Asset[] = [
    ...sets.map((set) => ({ type: "flashcard_set" as const, ...set })),
    ...quizzes.map((quiz) => ({ type: "quiz" as const, ...quiz })),
    ...guides.map((guide) => ({ type: "study_guide" as const, ...guide, content: guide.markdown })),
  ];
  const time = (asset: Asset) => asset.createdAt?.getTime() ?? 0;
  return assets.sort((a, b) => time(b) - time(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, MAX_ASSETS);
}
