import { courses, media, study } from "@study/contracts";
import { bindUnaryHandlers, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { startStandInGateway, type StandInGateway } from "./route-harness";
import { noteRoutes } from "../../src/routes/notes";
import { studyGuideRoutes } from "../../src/routes/study-guides";

/**
 * What a generation sends to study, against in-process stand-ins for media, courses and study: the ids only (study
 * reads the note, with each segment's recogniser confidence, from media itself: services/study's source tests), while
 * the note's REST shape stays as the API spec lists it, without a confidence per segment.
 */

const logger = createLogger("test", "silent");
const USER_ID = "user-1";
const COURSE_ID = "0190f3c1-0000-7000-8000-00000000c001";
const NOTE_ID = "0190f3c1-0000-7000-8000-00000000a001";
const at = new Date("2026-11-20T10:00:00.000Z");

const transcribedNote = media.Note.fromPartial({
  id: NOTE_ID,
  userId: USER_ID,
  courseId: COURSE_ID,
  title: "Enzymes",
  content: "Enzymes lower the activation energy. Mumble. They are proteins.",
  summary: "Enzymes are proteins.",
  transcriptionStatus: media.TranscriptionStatus.TRANSCRIPTION_STATUS_COMPLETED,
  metadata: { source: "upload", language: "en", confidence: 0.7 },
  transcriptSegments: [
    { id: "s1", noteId: NOTE_ID, text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5, confidence: 0.92 },
    { id: "s2", noteId: NOTE_ID, text: "Mumble.", startTime: 3.5, endTime: 4, confidence: 0 },
    { id: "s3", noteId: NOTE_ID, text: "They are proteins.", startTime: 4, endTime: 5.25, speaker: "Lecturer" },
  ],
  createdAt: at,
  updatedAt: at,
});

const generated: study.GenerateStudyGuideRequest[] = [];
/** The gateway's own reads of the note (the note routes'). */
const noteReads: media.GetNoteRequest[] = [];

function startServices(): Promise<RunningGrpcServer> {
  return startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: media.MediaServiceService,
        implementation: bindUnaryHandlers(logger, media.MediaServiceService, {
          async getNote(request) {
            noteReads.push(request);
            if (request.userId !== USER_ID || request.noteId !== NOTE_ID) throw AppError.notFound("Note");
            return { note: transcribedNote };
          },
        }),
      },
      {
        definition: courses.CoursesServiceService,
        implementation: bindUnaryHandlers(logger, courses.CoursesServiceService, {
          async checkCourseOwnership(request) {
            return { course: { id: request.courseId, name: "Biology 101" } };
          },
          async batchGetCourses() {
            return { courses: [] };
          },
        }),
      },
      {
        definition: study.StudyServiceService,
        implementation: bindUnaryHandlers(logger, study.StudyServiceService, {
          async generateStudyGuide(request) {
            generated.push(request);
            const studyGuide = study.StudyGuide.fromPartial({
              id: "guide-1",
              userId: USER_ID,
              courseId: COURSE_ID,
              noteId: NOTE_ID,
              noteIds: [NOTE_ID],
              title: "Enzymes",
              difficulty: study.Difficulty.DIFFICULTY_MEDIUM,
              generator: "offline",
              markdown: "# Enzymes",
              createdAt: at,
              updatedAt: at,
            });
            return { studyGuide, created: true, documents: [] };
          },
        }),
      },
    ],
  });
}

describe("a generation's source segments", () => {
  let gateway: StandInGateway;
  let api: StandInGateway["api"];
  const token = "secret-session";

  beforeAll(async () => {
    gateway = await startStandInGateway(
      await startServices(),
      (clients) => [...studyGuideRoutes(clients, { generationDeadlineMs: 10_000 }), ...noteRoutes(clients)],
      { userId: USER_ID, logger },
    );
    api = gateway.api;
  });
  afterAll(() => gateway.stop());
  beforeEach(() => {
    generated.length = 0;
    noteReads.length = 0;
  });

  it("are study's to read: the gateway sends the course and note ids, and reads no note itself", async () => {
    const { status } = await api("POST", "/api/study-guides/generate", { token, body: { courseId: COURSE_ID, noteIds: [NOTE_ID] } });
    expect(status).toBe(201);
    expect(generated).toEqual([
      {
        generation: {
          userId: USER_ID,
          courseId: COURSE_ID,
          noteIds: [NOTE_ID],
          documentIds: [],
          difficulty: study.Difficulty.DIFFICULTY_MEDIUM,
          focusAreas: [],
        },
      },
    ]);
    expect(noteReads).toEqual([]);
  });

  it("stay out of the note's REST segments, which the API spec lists without a confidence", async () => {
    const { status, body } = await api("GET", `/api/notes/${NOTE_ID}`, { token });
    expect(status).toBe(200);
    const segments = (body as { data: { transcriptSegments: Record<string, unknown>[] } }).data.transcriptSegments;
    expect(segments).toHaveLength(3);
    for (const segment of segments) expect(Object.keys(segment).sort()).toEqual(["endTime", "id", "noteId", "speaker", "startTime", "text"]);
  });
});
