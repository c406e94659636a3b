import { randomUUID } from "node:crypto";
import { media } from "@study/contracts";
import { createClient } from "@study/grpc";
import { freePort, httpClient, sharedTestStack, signCallsAs, signUpUser, startGatewayReplica } from "@study/testkit";
import { Client } from "pg";

/** Sentences with definitions and recurring terms: enough for the offline generator to make material from. */
const LECTURE = [
  "Sense and Sensibility is a novel by Jane Austen, published in 1811.",
  "Norland Park is the estate where the Dashwood family lived for many generations.",
  "Elinor Dashwood is the eldest daughter and represents sense, while Marianne represents sensibility.",
  "An entail is a legal restriction that keeps an estate within the male line of a family.",
  "Henry Dashwood promised his son John that he would look after his stepmother and sisters.",
  "Fanny Dashwood persuades her husband John to give his sisters almost nothing.",
].join(" ");

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Milliseconds the zone is ahead of UTC at the instant, from Intl's "GMT+13:00" offset name. */
function offsetMs(zone: string, at: Date): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" })
    .formatToParts(at)
    .find((part) => part.type === "timeZoneName")?.value;
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? "");
  if (!match) return 0;
  return (match[1] === "-" ? -1 : 1) * (Number(match[2]) * HOUR + Number(match[3]) * 60_000);
}

/** The instant of `hour` o'clock on the zone's calendar day `days` after today's. */
function localTime(zone: string, days: number, hour: number): Date {
  const now = new Date();
  const local = new Date(now.getTime() + offsetMs(zone, now));
  const midnightAsUtc = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + days);
  const wall = midnightAsUtc + hour * HOUR;
  return new Date(wall - offsetMs(zone, new Date(wall - offsetMs(zone, new Date(wall)))));
}

/** [start, end) of today in the zone, as the test computes it independently of the gateway. */
const todayOf = (zone: string) => ({ start: localTime(zone, 0, 0).getTime(), end: localTime(zone, 1, 0).getTime() });

interface SeededEvent {
  id: string;
  title: string;
  startDate: string;
}
interface Identified {
  id: string;
}
const ids = (items: Identified[]) => items.map((item) => item.id);

describe("GET /api/dashboard end to end", () => {
  const stack = sharedTestStack();
  const api = httpClient(stack.gatewayUrl);
  let mediaClient: ReturnType<typeof createClient<media.MediaServiceClient>>;
  let mediaDb: Client;
  let owner: { token: string; userId: string };
  let course: { id: string; name: string; color: string; emoji: string };
  const classes: SeededEvent[] = [];
  const deadlines: SeededEvent[] = [];
  const noteIds: string[] = [];
  const assets: { id: string; type: string }[] = [];

  beforeAll(async () => {
    signCallsAs(stack.internalAuth, "gateway");
    mediaClient = createClient(media.MediaServiceClient, media.MediaServiceService, stack.serviceAddresses.media);
    mediaDb = new Client({ connectionString: stack.databaseUrl("media") });
    await mediaDb.connect();
  }, 120_000);

  afterAll(async () => {
    mediaClient?.close();
    await mediaDb?.end();
  });

  async function createEvent(token: string, body: Record<string, unknown>): Promise<SeededEvent> {
    const response = await api("POST", "/api/calendar/events", { token, body: { color: "#2563eb", ...body } });
    expect(response.status).toBe(201);
    return response.body.data as SeededEvent;
  }

  /** A note as the media pipeline leaves a finished video import: transcribed, one segment (seeded like notes.test.ts). */
  async function transcribedNote(userId: string, courseId: string, title: string): Promise<string> {
    const { note, job } = await mediaClient.createImport({
      userId,
      type: media.ImportType.IMPORT_TYPE_VIDEO_IMPORT,
      title,
      courseId,
      sourceUrl: "https://video.example.com/watch?v=42",
      speedMultiplier: 2,
    });
    const noteId = note?.id ?? "";
    // The shared stack's media worker takes the import too (and drops it once the job is finished). The job is
    // finished first, in one transaction with the note: a worker starting the job meanwhile then fails its version
    // check and cannot move the note back to PROCESSING.
    await mediaDb.query("BEGIN");
    try {
      await mediaDb.query(`UPDATE import_job SET status = 'COMPLETED', progress = 100, completed_at = now(), version = version + 1 WHERE id = $1`, [
        job?.id,
      ]);
      await mediaDb.query(`UPDATE note SET transcription_status = 'COMPLETED', content = $2 WHERE id = $1`, [noteId, LECTURE]);
      await mediaDb.query(
        `INSERT INTO transcript_segment (id, note_id, position, text, start_time, end_time, speaker) VALUES ($2, $1, 0, $3, 0, 30, NULL)`,
        [noteId, randomUUID(), LECTURE],
      );
      await mediaDb.query("COMMIT");
    } catch (error) {
      await mediaDb.query("ROLLBACK");
      throw error;
    }
    return noteId;
  }

  /** Two users' calendars, notes and study material; only the first user's may show. */
  async function seed() {
    const alice = await signUpUser(api, { name: "Alice" });
    owner = alice;
    const created = await api("POST", "/api/courses", { token: alice.token, body: { name: "Literature", color: "#22c55e", emoji: "📚" } });
    expect(created.status).toBe(201);
    course = created.body.data;

    const zone = "Pacific/Auckland";
    const classAt = async (title: string, start: Date) =>
      createEvent(alice.token, { title, startDate: start.toISOString(), eventType: "CLASS", courseId: course.id });
    // Created out of order: the dashboard sorts by start.
    classes.push(await classAt("Auckland today 14:00", localTime(zone, 0, 14)));
    classes.push(await classAt("Auckland today 10:00", localTime(zone, 0, 10)));
    classes.push(await classAt("Auckland today 08:00", localTime(zone, 0, 8)));
    classes.push(await classAt("Auckland today 12:00", localTime(zone, 0, 12)));
    classes.push(await classAt("Auckland yesterday 12:00", localTime(zone, -1, 12)));
    classes.push(await classAt("Auckland tomorrow 12:00", localTime(zone, 1, 12)));
    // Before Auckland's 08:00 on UTC's today when UTC is a day behind, so UTC's first classes differ from Auckland's.
    classes.push(await classAt("UTC today 00:30", new Date(localTime("UTC", 0, 0).getTime() + HOUR / 2)));

    const now = Date.now();
    const deadlineAt = async (title: string, start: number, eventType = "DEADLINE") =>
      createEvent(alice.token, { title, startDate: new Date(start).toISOString(), eventType });
    deadlines.push(await deadlineAt("Due in 4 days", now + 4 * DAY));
    deadlines.push(await deadlineAt("Due in 2 days", now + 2 * DAY));
    deadlines.push(await deadlineAt("Was due an hour ago", now - HOUR));
    deadlines.push(await deadlineAt("Due tomorrow", now + DAY));
    deadlines.push(await deadlineAt("Due in 3 days", now + 3 * DAY));
    await deadlineAt("An exam, not a deadline", now + HOUR, "EXAM");

    // 11 notes, each the source of one piece of material: 4 flashcard sets, 4 quizzes, 3 study guides.
    for (let index = 0; index < 11; index += 1) noteIds.push(await transcribedNote(alice.userId, course.id, `Lecture ${index + 1}`));
    const kinds = [
      ...Array.from({ length: 4 }, () => ["flashcards", "flashcardSet", "flashcard_set"] as const),
      ...Array.from({ length: 4 }, () => ["quizzes", "quiz", "quiz"] as const),
      ...Array.from({ length: 3 }, () => ["study-guides", "studyGuide", "study_guide"] as const),
    ];
    for (const [index, [path, key, type]] of kinds.entries()) {
      const generated = await api("POST", `/api/${path}/generate`, {
        token: alice.token,
        body: { courseId: course.id, noteIds: [noteIds[index]] },
      });
      expect(generated.status).toBe(201);
      const data = generated.body.data as Record<string, Identified>;
      assets.push({ id: (data[key] ?? data).id, type });
    }

    // Another user's class today, deadline tomorrow, note and material: never on Alice's dashboard.
    const mallory = await signUpUser(api, { name: "Mallory" });
    const other = await api("POST", "/api/courses", { token: mallory.token, body: { name: "Other" } });
    await createEvent(mallory.token, { title: "Not Alice's class", startDate: localTime(zone, 0, 9).toISOString(), eventType: "CLASS" });
    await createEvent(mallory.token, { title: "Not Alice's deadline", startDate: new Date(now + HOUR).toISOString(), eventType: "DEADLINE" });
    const strangerNote = await transcribedNote(mallory.userId, other.body.data.id, "Not Alice's note");
    const strangerSet = await api("POST", "/api/flashcards/generate", {
      token: mallory.token,
      body: { courseId: other.body.data.id, noteIds: [strangerNote] },
    });
    expect(strangerSet.status).toBe(201);
  }

  beforeAll(seed, 120_000);

  const byTitle = (title: string) => {
    const found = classes.find((event) => event.title === title);
    if (!found) throw new Error(`no seeded class ${title}`);
    return found.id;
  };
  /** What "today's classes" are in the zone, computed from what was seeded. */
  const expectedClasses = (zone: string) => {
    const { start, end } = todayOf(zone);
    return classes
      .filter((event) => Date.parse(event.startDate) >= start && Date.parse(event.startDate) < end)
      .sort((a, b) => Date.parse(a.startDate) - Date.parse(b.startDate))
      .slice(0, 3)
      .map((event) => event.id);
  };

  it("answers a plain object: today's classes in the caller's zone, upcoming deadlines, newest notes and material", async () => {
    const response = await api("GET", "/api/dashboard?tz=Pacific/Auckland", { token: owner.token });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(Object.keys(body).sort()).toEqual(["degraded", "recentNotes", "recentStudyAssets", "todaysClasses", "upcomingDeadlines"]);
    expect(body.degraded).toEqual([]);

    expect(ids(body.todaysClasses)).toEqual([byTitle("Auckland today 08:00"), byTitle("Auckland today 10:00"), byTitle("Auckland today 12:00")]);
    expect(ids(body.todaysClasses)).toEqual(expectedClasses("Pacific/Auckland"));
    expect(body.todaysClasses[0]).toMatchObject({
      title: "Auckland today 08:00",
      eventType: "CLASS",
      courseId: course.id,
      course: { id: course.id, name: "Literature", code: null },
      user: { id: owner.userId, name: "Alice" },
    });

    const titles = (events: { title: string }[]) => events.map((event) => event.title);
    expect(titles(body.upcomingDeadlines)).toEqual(["Due tomorrow", "Due in 2 days", "Due in 3 days"]);

    expect(ids(body.recentNotes)).toEqual([...noteIds].reverse().slice(0, 10));
    expect(body.recentNotes[0]).toEqual({
      id: noteIds[10],
      content: LECTURE,
      transcript: LECTURE,
      audioPath: null,
      videoUrl: "https://video.example.com/watch?v=42",
      status: "COMPLETED",
      courseId: course.id,
      userId: owner.userId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    expect(body.recentStudyAssets.map((asset: { id: string; type: string }) => ({ id: asset.id, type: asset.type }))).toEqual(
      [...assets].reverse().slice(0, 10),
    );
    const guide = body.recentStudyAssets[0];
    expect(Object.keys(guide).sort()).toEqual([
      "content",
      "course",
      "courseId",
      "createdAt",
      "description",
      "difficulty",
      "id",
      "title",
      "type",
      "updatedAt",
    ]);
    expect(guide).toMatchObject({
      id: assets[10].id,
      title: expect.any(String),
      content: expect.stringContaining("#"),
      type: "study_guide",
      difficulty: "MEDIUM",
      courseId: course.id,
      course: { id: course.id, name: "Literature", color: "#22c55e", emoji: "📚" },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const set = body.recentStudyAssets[9];
    expect(set).toMatchObject({ type: "flashcard_set", content: null, difficulty: "MEDIUM", course: { id: course.id } });
  });

  it("takes the zone from the x-timezone header, defaults to UTC, and refuses a zone that does not exist", async () => {
    const byHeader = await api("GET", "/api/dashboard", { token: owner.token, headers: { "x-timezone": "Pacific/Auckland" } });
    expect(byHeader.status).toBe(200);
    expect(ids(byHeader.body.todaysClasses)).toEqual(expectedClasses("Pacific/Auckland"));

    const utc = await api("GET", "/api/dashboard", { token: owner.token });
    expect(utc.status).toBe(200);
    expect(ids(utc.body.todaysClasses)).toEqual(expectedClasses("UTC"));
    expect(ids(utc.body.todaysClasses)).toContain(byTitle("UTC today 00:30"));
    expect(ids(utc.body.todaysClasses)).not.toEqual(ids(byHeader.body.todaysClasses));
    // The query parameter wins over the header.
    const both = await api("GET", "/api/dashboard?tz=UTC", { token: owner.token, headers: { "x-timezone": "Pacific/Auckland" } });
    expect(ids(both.body.todaysClasses)).toEqual(expectedClasses("UTC"));

    const badQuery = await api("GET", "/api/dashboard?tz=Mars/Olympus_Mons", { token: owner.token });
    expect(badQuery.status).toBe(400);
    expect(badQuery.body).toMatchObject({ success: false, code: "VALIDATION_ERROR", details: [{ field: "tz", message: expect.any(String) }] });
    const badHeader = await api("GET", "/api/dashboard", { token: owner.token, headers: { "x-timezone": "Nowhere/Special" } });
    expect(badHeader.status).toBe(400);
    expect(badHeader.body).toMatchObject({
      success: false,
      code: "VALIDATION_ERROR",
      details: [{ field: "x-timezone", message: expect.any(String) }],
    });
  });

  it("answers 401 without a session", async () => {
    const response = await api("GET", "/api/dashboard");
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: expect.any(String), code: "UNAUTHORIZED" });
  });

  it("with the study service stopped: still 200, the material empty and study named in degraded", async () => {
    // Seen through a gateway replica whose study address answers nothing: the shared study keeps serving the rest.
    const replica = await startGatewayReplica({ STUDY_GRPC_ADDRESS: `127.0.0.1:${await freePort()}` });
    const response = await httpClient(replica.url)("GET", "/api/dashboard?tz=Pacific/Auckland", { token: owner.token }).finally(() => replica.stop());
    expect(response.status).toBe(200);
    expect(response.body.degraded).toEqual(["study"]);
    expect(response.body.recentStudyAssets).toEqual([]);
    expect(response.body.todaysClasses).toHaveLength(3);
    expect(response.body.upcomingDeadlines).toHaveLength(3);
    expect(response.body.recentNotes).toHaveLength(10);
  });
});
