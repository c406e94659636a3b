import { randomUUID } from "node:crypto";
import { media } from "@study/contracts";
import { createClient } from "@study/grpc";
import { eventually, httpClient, signCallsAs, signUpUser, startTestStack, type TestStack } from "@study/testkit";
import { Client } from "pg";

/**
 * Notes and import jobs through the gateway. The import endpoints come with the media pipeline, so notes and
 * jobs are seeded through the media service's gRPC API (CreateImport), as the gateway will create them.
 */
describe("notes and import jobs end to end", () => {
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;
  let mediaClient: ReturnType<typeof createClient<media.MediaServiceClient>>;
  let mediaDb: Client;

  beforeAll(async () => {
    // No media worker: the jobs seeded here must stay as the test writes them.
    // The audio URL seeded below is checked against the download policy when the import is created.
    stack = await startTestStack({
      services: ["courses", "media", "notifications"],
      without: ["media-worker"],
      env: { MEDIA_DOWNLOAD_ALLOWLIST: "127.0.0.1:9" },
    });
    api = httpClient(stack.gatewayUrl);
    signCallsAs(stack.internalAuth, "gateway");
    mediaClient = createClient(media.MediaServiceClient, media.MediaServiceService, stack.serviceAddresses.media);
    mediaDb = new Client({ connectionString: stack.databaseUrl("media") });
    await mediaDb.connect();
  }, 120_000);

  afterAll(async () => {
    mediaClient?.close();
    await mediaDb?.end();
    await stack?.stopAll();
  });

  const signUp = (name: string) => signUpUser(api, { name });

  async function createCourse(token: string, body: Record<string, string>) {
    const response = await api("POST", "/api/courses", { token, body });
    expect(response.status).toBe(201);
    return response.body.data as { id: string; name: string; color: string | null; emoji: string | null };
  }

  async function importVideo(userId: string, courseId: string, title: string) {
    const { note, job } = await mediaClient.createImport({
      userId,
      type: media.ImportType.IMPORT_TYPE_VIDEO_IMPORT,
      title,
      courseId,
      sourceUrl: "https://video.example.com/watch?v=42",
      speedMultiplier: 2,
    });
    return { noteId: note!.id, jobId: job!.id };
  }

  /** What the media pipeline will do when an import succeeds, written straight into the media database. */
  async function completeImport(noteId: string, jobId: string) {
    await mediaDb.query(
      `UPDATE note SET transcription_status = 'COMPLETED', content = $2, summary = $3,
         metadata = metadata || '{"duration": 61.5, "wordCount": 4, "language": "en", "confidence": 0.9, "mimeType": "audio/mpeg", "fileSize": 2048}'::jsonb
       WHERE id = $1`,
      [noteId, "Mitochondria make energy.", "Mitochondria produce ATP."],
    );
    await mediaDb.query(
      `INSERT INTO transcript_segment (id, note_id, position, text, start_time, end_time, speaker)
       VALUES ($2, $1, 0, 'Mitochondria', 0, 1.5, NULL), ($3, $1, 1, 'make energy.', 1.5, 3.25, 'Lecturer')`,
      [noteId, randomUUID(), randomUUID()],
    );
    await mediaDb.query(`UPDATE import_job SET status = 'COMPLETED', progress = 100, completed_at = now(), version = version + 1 WHERE id = $1`, [
      jobId,
    ]);
  }

  it("lists, shows, annotates, renames and deletes notes, each with its course", async () => {
    const alice = await signUp("Alice");
    const biology = await createCourse(alice.token, {
      name: "Cell Biology",
      color: "#22c55e",
      emoji: "🧬",
      professor: "Dr. Hooke",
      semester: "Fall 2026",
    });
    const chemistry = await createCourse(alice.token, { name: "Chemistry" });
    const first = await importVideo(alice.userId, biology.id, "Lecture 1: Cells");
    const second = await importVideo(alice.userId, chemistry.id, "Lecture 1: Atoms");
    const third = await importVideo(alice.userId, biology.id, "Lecture 2: Mitochondria");
    await completeImport(third.noteId, third.jobId);

    const list = await api("GET", "/api/notes", { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ success: true, message: "Notes retrieved" });
    expect(list.body.data.map((n: { id: string }) => n.id)).toEqual([third.noteId, second.noteId, first.noteId]);
    expect(list.body.data[2]).toEqual({
      id: first.noteId,
      title: "Lecture 1: Cells",
      content: null,
      courseId: biology.id,
      audioUrl: null,
      transcriptionStatus: "PENDING",
      metadata: { source: "video", originalUrl: "https://video.example.com/watch?v=42" },
      userNotes: [],
      course: { id: biology.id, name: "Cell Biology", color: "#22c55e", emoji: "🧬" },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      userId: alice.userId,
    });
    expect(list.body.data[1].course).toEqual({ id: chemistry.id, name: "Chemistry", color: null, emoji: null });

    const ofBiology = await api("GET", `/api/courses/${biology.id}/notes`, { token: alice.token });
    expect(ofBiology.status).toBe(200);
    expect(ofBiology.body.data.map((n: { id: string }) => n.id)).toEqual([third.noteId, first.noteId]);
    expect((await api("GET", `/api/courses/${randomUUID()}/notes`, { token: alice.token })).status).toBe(404);

    const shown = await api("GET", `/api/notes/${third.noteId}`, { token: alice.token });
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({
      id: third.noteId,
      content: "Mitochondria make energy.",
      transcriptionStatus: "COMPLETED",
      metadata: { source: "video", duration: 61.5, wordCount: 4, language: "en", confidence: 0.9, mimeType: "audio/mpeg", fileSize: 2048 },
      course: { id: biology.id, name: "Cell Biology", color: "#22c55e", emoji: "🧬", professor: "Dr. Hooke", semester: "Fall 2026" },
      userNotes: [],
    });
    expect(shown.body.data.transcriptSegments).toEqual([
      { id: expect.any(String), text: "Mitochondria", startTime: 0, endTime: 1.5, speaker: null, noteId: third.noteId },
      { id: expect.any(String), text: "make energy.", startTime: 1.5, endTime: 3.25, speaker: "Lecturer", noteId: third.noteId },
    ]);
    expect(list.body.data[0]).not.toHaveProperty("transcriptSegments");

    const annotated = await api("PUT", `/api/notes/${third.noteId}/user-notes`, {
      token: alice.token,
      body: {
        userNotes: [
          { timestamp: 42.5, content: "Exam question!", contentType: "text" },
          { timestamp: 3, content: "https://example.com/atp", contentType: "url" },
        ],
      },
    });
    expect(annotated.status).toBe(200);
    expect(annotated.body.message).toBe("User notes updated");
    expect(annotated.body.data.userNotes).toEqual([
      { timestamp: 3, content: "https://example.com/atp", contentType: "url" },
      { timestamp: 42.5, content: "Exam question!", contentType: "text" },
    ]);
    expect(annotated.body.data.course).toEqual({ id: biology.id, name: "Cell Biology", color: "#22c55e", emoji: "🧬" });
    const replaced = await api("PUT", `/api/notes/${third.noteId}/user-notes`, {
      token: alice.token,
      body: { userNotes: [{ timestamp: 0, content: "Only this one", contentType: "file" }] },
    });
    expect(replaced.body.data.userNotes).toEqual([{ timestamp: 0, content: "Only this one", contentType: "file" }]);
    expect((await api("GET", `/api/notes/${third.noteId}`, { token: alice.token })).body.data.userNotes).toHaveLength(1);

    const invalid = await api("PUT", `/api/notes/${third.noteId}/user-notes`, {
      token: alice.token,
      body: {
        userNotes: [
          { timestamp: 1, content: "fine", contentType: "text" },
          { timestamp: -1, content: "before the start", contentType: "text" },
          { timestamp: 2, content: "x".repeat(1001), contentType: "link" },
        ],
      },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ success: false, code: "VALIDATION_ERROR" });
    expect(invalid.body.details).toEqual([
      { field: "userNotes.1.timestamp", message: "must be a number of seconds >= 0" },
      { field: "userNotes.2.content", message: "must be at most 1000 characters" },
      { field: "userNotes.2.contentType", message: "must be one of text, url, file" },
    ]);
    const missing = await api("PUT", `/api/notes/${third.noteId}/user-notes`, { token: alice.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { field: string }) => d.field)).toEqual(["userNotes"]);

    const renamed = await api("PATCH", `/api/notes/${first.noteId}`, { token: alice.token, body: { title: "  Cells and membranes " } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: first.noteId, title: "Cells and membranes", course: { id: biology.id } });
    const badRename = await api("PATCH", `/api/notes/${first.noteId}`, { token: alice.token, body: { title: " ", content: "x" } });
    expect(badRename.status).toBe(400);
    expect(badRename.body.details).toEqual(
      expect.arrayContaining([
        { field: "title", message: "must not be empty" },
        { field: "content", message: "is not a known field" },
      ]),
    );

    const deleted = await api("DELETE", `/api/notes/${second.noteId}`, { token: alice.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: "Note deleted" });
    const gone = await api("GET", `/api/notes/${second.noteId}`, { token: alice.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ success: false, error: "Note not found", code: "NOT_FOUND" });
    expect((await api("GET", "/api/notes", { token: alice.token })).body.data).toHaveLength(2);
    // The deleted note's running import was cancelled with it.
    const orphan = await api("GET", `/api/jobs/${second.jobId}`, { token: alice.token });
    expect(orphan.body.data).toMatchObject({ status: "CANCELLED", noteId: null, note: null, errorMessage: "Cancelled: the note was deleted" });

    // The notifications service told Alice that processing started.
    const notifications = await eventually(async () => {
      const response = await api("GET", "/api/notifications", { token: alice.token });
      const started = response.body.data.notifications.filter((n: { content: string }) => n.content.startsWith("Processing started"));
      return started.length === 3 ? started : undefined;
    });
    expect(notifications[0]).toMatchObject({ type: "SYSTEM" });
  });

  it("lists, filters, sorts, pages, shows, cancels and deletes import jobs, with statistics", async () => {
    const bob = await signUp("Bob");
    const physics = await createCourse(bob.token, { name: "Physics", color: "#3b82f6", emoji: "🧲" });
    const a = await importVideo(bob.userId, physics.id, "A");
    const { job: audioJob } = await mediaClient.createImport({
      userId: bob.userId,
      type: media.ImportType.IMPORT_TYPE_AUDIO_IMPORT,
      title: "B",
      courseId: physics.id,
      sourceUrl: "http://127.0.0.1:9/b.mp3",
      speedMultiplier: 1,
      mimeType: "audio/mpeg",
    });
    const c = await importVideo(bob.userId, physics.id, "C");
    await completeImport(a.noteId, a.jobId);

    const list = await api("GET", "/api/jobs", { token: bob.token });
    expect(list.status).toBe(200);
    expect(list.body.data.jobs.map((j: { title: string }) => j.title)).toEqual(["C", "B", "A"]);
    expect(list.body.data.pagination).toEqual({ total: 3, limit: 20, offset: 0, hasMore: false, nextOffset: null });
    expect(list.body.data.jobs[2]).toEqual({
      id: a.jobId,
      title: "A",
      status: "COMPLETED",
      progress: 100,
      source: "VIDEO",
      errorMessage: null,
      userId: bob.userId,
      noteId: a.noteId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      completedAt: expect.any(String),
      note: {
        id: a.noteId,
        title: "A",
        status: "COMPLETED",
        duration: 61.5,
        fileSize: 2048,
        mimeType: "audio/mpeg",
        summary: "Mitochondria produce ATP.",
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        course: { id: physics.id, name: "Physics", color: "#3b82f6", emoji: "🧲" },
      },
    });
    expect(list.body.data.jobs[1]).toMatchObject({
      id: audioJob!.id,
      source: "UPLOAD",
      status: "PENDING",
      completedAt: null,
      note: { mimeType: "audio/mpeg", duration: null },
    });

    const titles = async (query: string) =>
      (await api("GET", `/api/jobs?${query}`, { token: bob.token })).body.data.jobs.map((j: { title: string }) => j.title);
    expect(await titles("sortOrder=asc")).toEqual(["A", "B", "C"]);
    expect(await titles("sortBy=completedAt")).toEqual(["A", "C", "B"]);
    expect(await titles("status=COMPLETED")).toEqual(["A"]);
    expect(await titles("source=UPLOAD")).toEqual(["B"]);
    const page = await api("GET", "/api/jobs?limit=1&offset=1", { token: bob.token });
    expect(page.body.data.jobs.map((j: { title: string }) => j.title)).toEqual(["B"]);
    expect(page.body.data.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true, nextOffset: 2 });
    const badQuery = await api("GET", "/api/jobs?limit=0&status=DONE&sortBy=title", { token: bob.token });
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.details.map((d: { field: string }) => d.field).sort()).toEqual(["limit", "sortBy", "status"]);
    // Offsets travel in protobuf int32 fields: beyond 2147483647 they are refused here, not failed in gRPC (500).
    for (const path of ["/api/jobs", "/api/courses"]) {
      const lastOffset = await api("GET", `${path}?offset=2147483647`, { token: bob.token });
      expect({ path, status: lastOffset.status }).toEqual({ path, status: 200 });
      const tooFar = await api("GET", `${path}?offset=3000000000`, { token: bob.token });
      expect({ path, status: tooFar.status, body: tooFar.body }).toEqual({
        path,
        status: 400,
        body: expect.objectContaining({ code: "VALIDATION_ERROR", details: [{ field: "offset", message: "must be at most 2147483647" }] }),
      });
    }

    const shown = await api("GET", `/api/jobs/${a.jobId}`, { token: bob.token });
    expect(shown.status).toBe(200);
    expect(shown.body.data.note).toMatchObject({ summary: "Mitochondria produce ATP.", course: { name: "Physics" } });
    const invalidId = await api("GET", "/api/jobs/not-a-job", { token: bob.token });
    expect(invalidId.status).toBe(400);
    expect(invalidId.body).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "id", message: "must be a job id (UUID)" }] });
    expect((await api("GET", `/api/jobs/${randomUUID()}`, { token: bob.token })).status).toBe(404);

    const stats = await api("GET", "/api/jobs/stats", { token: bob.token });
    expect(stats.status).toBe(200);
    expect(stats.body.data).toEqual({
      total: 3,
      byStatus: { pending: 2, inProgress: 0, completed: 1, failed: 0, cancelled: 0 },
      successRate: 100,
      recentJobs: [
        { id: c.jobId, title: "C", status: "PENDING", progress: 0, source: "VIDEO", createdAt: expect.any(String), completedAt: null },
        expect.objectContaining({ title: "B", source: "UPLOAD" }),
        expect.objectContaining({ title: "A", status: "COMPLETED", completedAt: expect.any(String) }),
      ],
      queueStats: { waiting: 2, active: 0, completed: 1, failed: 0, total: 3 },
    });

    const active = await api("DELETE", `/api/jobs/${c.jobId}`, { token: bob.token });
    expect(active.status).toBe(400);
    expect(active.body).toEqual({ success: false, error: "Job is still active: cancel it first, then delete it", code: "JOB_ACTIVE" });
    const cancelled = await api("POST", `/api/jobs/${c.jobId}/cancel`, { token: bob.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ success: true, message: "Job cancelled" });
    const afterCancel = await api("GET", `/api/jobs/${c.jobId}`, { token: bob.token });
    expect(afterCancel.body.data).toMatchObject({ status: "CANCELLED", errorMessage: "Cancelled by user", note: { status: "FAILED" } });
    const again = await api("POST", `/api/jobs/${c.jobId}/cancel`, { token: bob.token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ success: false, error: "Job is already cancelled", code: "JOB_ALREADY_FINISHED" });
    const finished = await api("POST", `/api/jobs/${a.jobId}/cancel`, { token: bob.token });
    expect(finished.body).toMatchObject({ code: "JOB_ALREADY_FINISHED", error: "Job is already completed" });

    const removed = await api("DELETE", `/api/jobs/${c.jobId}`, { token: bob.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: "Job deleted" });
    expect((await api("GET", `/api/jobs/${c.jobId}`, { token: bob.token })).status).toBe(404);
    expect((await api("GET", `/api/notes/${c.noteId}`, { token: bob.token })).body.data.transcriptionStatus).toBe("FAILED");
    expect((await api("GET", "/api/jobs/stats", { token: bob.token })).body.data).toMatchObject({ total: 2, byStatus: { cancelled: 0 } });
  });

  it("answers 404 for another user's notes, jobs and course, and 401 without a session", async () => {
    const owner = await signUp("Olga");
    const stranger = await signUp("Sam");
    const course = await createCourse(owner.token, { name: "Private course" });
    const { noteId, jobId } = await importVideo(owner.userId, course.id, "Private lecture");

    for (const [method, path, body] of [
      ["GET", `/api/notes/${noteId}`],
      ["PUT", `/api/notes/${noteId}/user-notes`, { userNotes: [] }],
      ["PATCH", `/api/notes/${noteId}`, { title: "Mine now" }],
      ["DELETE", `/api/notes/${noteId}`],
      ["GET", `/api/courses/${course.id}/notes`],
      ["GET", `/api/jobs/${jobId}`],
      ["POST", `/api/jobs/${jobId}/cancel`],
      ["DELETE", `/api/jobs/${jobId}`],
      // The progress stream checks the owner before it starts: no event of another user's job.
      ["GET", `/api/jobs/${jobId}/events`],
    ] as const) {
      const response = await api(method, path, { token: stranger.token, body });
      expect({ method, path, status: response.status, code: response.body.code }).toEqual({ method, path, status: 404, code: "NOT_FOUND" });
    }
    expect((await api("GET", "/api/notes", { token: stranger.token })).body.data).toEqual([]);
    expect((await api("GET", "/api/jobs", { token: stranger.token })).body.data.jobs).toEqual([]);
    expect((await api("GET", "/api/jobs/stats", { token: stranger.token })).body.data.total).toBe(0);
    expect((await api("GET", `/api/notes/${noteId}`, { token: owner.token })).body.data.title).toBe("Private lecture");

    for (const path of ["/api/notes", `/api/notes/${noteId}`, "/api/jobs", "/api/jobs/stats"]) {
      expect((await api("GET", path)).status).toBe(401);
    }
  });

  it("removes a course's notes when the course is deleted", async () => {
    const dana = await signUp("Dana");
    const course = await createCourse(dana.token, { name: "Dropped course" });
    const kept = await createCourse(dana.token, { name: "Kept course" });
    await importVideo(dana.userId, course.id, "Goes with the course");
    const keptNote = await importVideo(dana.userId, kept.id, "Stays");
    expect((await api("DELETE", `/api/courses/${course.id}`, { token: dana.token })).status).toBe(200);
    const remaining = await eventually(async () => {
      const notes = (await api("GET", "/api/notes", { token: dana.token })).body.data as { id: string }[];
      return notes.length === 1 ? notes : undefined;
    });
    expect(remaining.map((n) => n.id)).toEqual([keptNote.noteId]);
  });
});
