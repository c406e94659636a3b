import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  librivoxClip,
  runFfmpeg,
  sharedTestStack,
  signUpWithCourse,
  uploadMultipart,
  waitForJob,
  type SharedStack,
} from "@study/testkit";
import { unzipSync } from "fflate";
import initSqlJs from "sql.js";

/** Text user notes a student typed during the lecture: with the transcript, what the material is made from. */
const USER_NOTES = [
  { timestamp: 1, content: "Sense and Sensibility is a novel by Jane Austen, published in 1811.", contentType: "text" },
  { timestamp: 4, content: "Norland Park is the estate where the Dashwood family lived for many generations.", contentType: "text" },
  {
    timestamp: 9,
    content: "Elinor Dashwood is the eldest daughter and represents sense, while Marianne represents sensibility.",
    contentType: "text",
  },
  { timestamp: 14, content: "An entail is a legal restriction that keeps an estate within the male line of a family.", contentType: "text" },
  { timestamp: 18, content: "Henry Dashwood promised his son John that he would look after his stepmother and sisters.", contentType: "text" },
  { timestamp: 22, content: "Fanny Dashwood persuades her husband John to give his sisters almost nothing.", contentType: "text" },
];

/** An item of a list answer, by the one field a test compares (the test kit checks whole answers against the OpenAPI document). */
interface Identified {
  id: string;
}

describe("study material through the gateway: generation from a transcribed lecture, quizzes, spaced repetition, export", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let folder: string;
  let lecture: string;
  let owner: { token: string; courseId: string; noteId: string };
  let stranger: { token: string; courseId: string };

  const signUp = (name: string) => signUpWithCourse(api, { name });

  async function uploadLecture(token: string, courseId: string): Promise<{ noteId: string; jobId: string }> {
    const file = { path: lecture, name: "austen-lecture.mp3", type: "audio/mpeg" };
    const { status, body } = await uploadMultipart(stack.gatewayUrl, token, "/api/notes/upload/audio", { courseId, speedMultiplier: "1" }, file);
    expect(status).toBe(201);
    return { noteId: body.data.note.id, jobId: body.data.importJob.id };
  }

  async function transcribed(token: string, jobId: string) {
    const job = await waitForJob(api, token, jobId, { timeoutMs: 60_000, intervalMs: 200 });
    expect(job.status).toBe("COMPLETED");
  }

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "study-e2e-"));
    lecture = join(folder, "lecture.mp3");
    // Three clips of real recorded speech (~15 s) as one mp3.
    const inputs = ["0870", "0880", "0890"].flatMap((id) => ["-i", librivoxClip(id)]);
    await runFfmpeg([...inputs, "-filter_complex", "concat=n=3:v=0:a=1", "-c:a", "libmp3lame", "-b:a", "64k", lecture]);
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);

    const user = await signUp("Student");
    const { noteId, jobId } = await uploadLecture(user.token, user.courseId);
    await transcribed(user.token, jobId);
    const edited = await api("PUT", `/api/notes/${noteId}/user-notes`, { token: user.token, body: { userNotes: USER_NOTES } });
    expect(edited.status).toBe(200);
    owner = { ...user, noteId };
    stranger = await signUp("Stranger");
  }, 150_000);

  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  async function transcriptSegmentStarts(noteId: string): Promise<number[]> {
    const { body } = await api("GET", `/api/notes/${noteId}`, { token: owner.token });
    expect(body.data.transcriptSegments.length).toBeGreaterThan(0);
    return body.data.transcriptSegments.map((segment: { startTime: number }) => segment.startTime);
  }

  const generate = (kind: "flashcards" | "quizzes" | "study-guides", body: Record<string, unknown>, token = owner.token) =>
    api("POST", `/api/${kind}/generate`, { token, body: { courseId: owner.courseId, noteIds: [owner.noteId], ...body } });

  it("generates flashcards offline, each linked to its source; the same request returns the same set", async () => {
    const first = await generate("flashcards", { cardCount: 8 });
    expect(first.status).toBe(201);
    const { flashcardSet, flashcards } = first.body.data;
    expect(flashcardSet).toMatchObject({
      courseId: owner.courseId,
      noteId: owner.noteId,
      noteIds: [owner.noteId],
      difficulty: "MEDIUM",
      generator: "offline",
    });
    expect(flashcards.length).toBeGreaterThanOrEqual(4);
    expect(flashcards.length).toBeLessThanOrEqual(8);
    expect(flashcardSet.cardCount).toBe(flashcards.length);
    // Fewer cards than asked for come with the reason in the message.
    expect(first.body.message).toBe(
      flashcards.length === 8
        ? "Flashcards generated"
        : `Flashcards generated, ${flashcards.length} of the 8 cards asked for: the notes state ${flashcards.length} distinct facts to ask about, and no fact is asked twice (one card each)`,
    );
    for (const card of flashcards) {
      expect(card.front.length).toBeGreaterThan(0);
      expect(card.back.length).toBeGreaterThan(0);
      expect(card.flashcardSetId).toBe(flashcardSet.id);
      expect(card.schedule).toMatchObject({ state: "NEW", reps: 0, lapses: 0, lastReview: null });
    }
    // Every card links to the note and to the start of one of its transcript segments (where a client jumps to).
    const segmentStarts = await transcriptSegmentStarts(owner.noteId);
    for (const card of flashcards)
      expect([card.front, card.source?.noteId, segmentStarts.includes(card.source?.startTime)]).toEqual([card.front, owner.noteId, true]);
    expect(flashcards.map((card: { order: number }) => card.order)).toEqual(flashcards.map((_: unknown, index: number) => index));

    const again = await generate("flashcards", { cardCount: 8 });
    expect(again.status).toBe(201);
    expect(again.body.data.flashcardSet.id).toBe(flashcardSet.id);
    expect(again.body.message).toMatch(/already existed/);

    const list = await api("GET", `/api/flashcards?courseId=${owner.courseId}`, { token: owner.token });
    expect(list.body.data.map((set: Identified) => set.id)).toContain(flashcardSet.id);
    const listed = list.body.data.find((set: Identified) => set.id === flashcardSet.id);
    expect(listed).toMatchObject({ course: { id: owner.courseId, name: "English Literature" }, note: { id: owner.noteId, title: "austen-lecture" } });
    expect(listed.flashcards).toHaveLength(flashcards.length);

    const byNote = await api("GET", `/api/notes/${owner.noteId}/flashcards`, { token: owner.token });
    expect(byNote.status).toBe(200);
    expect(byNote.body.data.map((set: Identified) => set.id)).toEqual([flashcardSet.id]);

    const got = await api("GET", `/api/flashcards/${flashcardSet.id}`, { token: owner.token });
    expect(got.body.data).toMatchObject({ id: flashcardSet.id, course: { id: owner.courseId }, note: { id: owner.noteId } });
    expect(got.body.data.flashcards.map((card: Identified) => card.id)).toEqual(flashcards.map((card: Identified) => card.id));
  });

  it("generates a quiz of four-option and true/false questions and scores known answers exactly, keeping the attempts", async () => {
    const created = await generate("quizzes", { questionCount: 6, difficulty: "HARD" });
    expect(created.status).toBe(201);
    const { quiz, questions } = created.body.data;
    expect(quiz).toMatchObject({ difficulty: "HARD", noteId: owner.noteId });
    expect(questions.length).toBeGreaterThanOrEqual(3);
    if (questions.length < 6)
      expect(created.body.message).toMatch(new RegExp(`^Quiz generated, ${questions.length} of the 6 questions asked for: the notes state `));
    else expect(created.body.message).toBe("Quiz generated");
    for (const question of questions) {
      expect(["multiple_choice", "true_false"]).toContain(question.type);
      expect(question.options).toHaveLength(question.type === "multiple_choice" ? 4 : 2);
      if (question.type === "true_false") expect(question.options).toEqual(["True", "False"]);
      expect(question.options).toContain(question.correctAnswer);
      expect(question.explanation.length).toBeGreaterThan(0);
    }
    const segmentStarts = await transcriptSegmentStarts(owner.noteId);
    for (const question of questions) {
      expect([question.question, question.source?.noteId, segmentStarts.includes(question.source?.startTime)]).toEqual([
        question.question,
        owner.noteId,
        true,
      ]);
    }
    expect((await generate("quizzes", { questionCount: 6, difficulty: "HARD" })).body.data.quiz.id).toBe(quiz.id);

    // Right answers (shouted and padded) to all but the first question, a wrong one to the first.
    const [first, ...rest] = questions;
    const wrong = first.options.find((option: string) => option !== first.correctAnswer);
    const responses = [
      { questionId: first.id, answer: wrong },
      ...rest.map((question: { id: string; correctAnswer: string }) => ({
        questionId: question.id,
        answer: `  ${question.correctAnswer.toUpperCase()} `,
      })),
    ];
    const scored = await api("POST", "/api/quizzes/validate", { token: owner.token, body: { quizId: quiz.id, responses } });
    expect(scored.status).toBe(200);
    const total = questions.length;
    expect(scored.body.data).toMatchObject({
      quizId: quiz.id,
      totalQuestions: total,
      correctAnswers: total - 1,
      score: total - 1,
      percentage: Math.round(((total - 1) / total) * 10_000) / 100,
    });
    expect(scored.body.data.results[0]).toEqual({
      questionId: first.id,
      userAnswer: wrong,
      correctAnswer: first.correctAnswer,
      isCorrect: false,
      explanation: first.explanation,
    });

    const partial = await api("POST", "/api/quizzes/validate", {
      token: owner.token,
      body: { quizId: quiz.id, responses: [{ questionId: first.id, answer: first.correctAnswer }] },
    });
    expect(partial.body.data).toMatchObject({ correctAnswers: 1, totalQuestions: total });

    const attempts = await api("GET", `/api/quizzes/${quiz.id}/attempts`, { token: owner.token });
    expect(attempts.body.data.map((attempt: { correctAnswers: number }) => attempt.correctAnswers)).toEqual([1, total - 1]);

    const unknown = await api("POST", "/api/quizzes/validate", {
      token: owner.token,
      body: { quizId: quiz.id, responses: [{ questionId: randomUUID(), answer: "x" }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      success: false,
      code: "VALIDATION_ERROR",
      details: [{ field: "responses[0].questionId", message: "is not a question of this quiz" }],
    });

    const byNote = await api("GET", `/api/notes/${owner.noteId}/quizzes`, { token: owner.token });
    expect(byNote.body.data).toEqual([
      expect.objectContaining({
        id: quiz.id,
        noteId: owner.noteId,
        course: { id: owner.courseId, name: "English Literature" },
        note: { id: owner.noteId, title: "austen-lecture" },
      }),
    ]);

    const got = await api("GET", `/api/quizzes/${quiz.id}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({
      id: quiz.id,
      difficulty: "HARD",
      course: { id: owner.courseId, name: "English Literature" },
      note: { id: owner.noteId, title: "austen-lecture" },
    });
    expect(
      got.body.data.questions.map((question: { id: string; order: number; quizId: string }) => [question.id, question.order, question.quizId]),
    ).toEqual(questions.map((question: Identified, index: number) => [question.id, index, quiz.id]));
  });

  it("generates a study guide: markdown (shape A) on generation and lists, the structured shape B by id", async () => {
    const created = await generate("study-guides", {});
    expect(created.status).toBe(201);
    const guide = created.body.data;
    expect(guide).toMatchObject({ courseId: owner.courseId, noteId: owner.noteId, userId: expect.any(String) });
    expect(guide.content).toMatch(/^# .+\n/);
    expect(guide.content).toContain("## Overview");

    const structured = await api("GET", `/api/study-guides/${guide.id}?shape=structured`, { token: owner.token });
    expect(structured.status).toBe(200);
    const shapeB = structured.body.data;
    expect(shapeB.content).toEqual({
      overview: expect.any(String),
      keyTerms: expect.any(Array),
      learningObjectives: expect.any(Array),
      studyTips: expect.any(Array),
    });
    expect(shapeB.sections.length).toBeGreaterThan(0);
    expect(shapeB.sections.map((section: { order: number }) => section.order)).toEqual(shapeB.sections.map((_: unknown, index: number) => index));
    for (const section of shapeB.sections) expect(guide.content).toContain(`## ${section.title}`);

    const shapeA = await api("GET", `/api/study-guides/${guide.id}`, { token: owner.token });
    expect(shapeA.body.data).toMatchObject({ content: guide.content, course: { id: owner.courseId }, note: { id: owner.noteId } });
    expect(shapeA.body.data.sections).toEqual(shapeB.sections);

    const byNote = await api("GET", `/api/notes/${owner.noteId}/study-guides`, { token: owner.token });
    expect(byNote.body.data.map((entry: Identified) => entry.id)).toEqual([guide.id]);
    const list = await api("GET", `/api/study-guides?courseId=${owner.courseId}`, { token: owner.token });
    expect(list.body.data).toEqual([
      expect.objectContaining({
        id: guide.id,
        content: guide.content,
        course: { id: owner.courseId, name: "English Literature" },
        note: { id: owner.noteId, title: "austen-lecture" },
      }),
    ]);
    expect((await generate("study-guides", {})).body.data.id).toBe(guide.id);
  });

  it("schedules cards with FSRS: new cards are due, a review moves the due date and is logged", async () => {
    const set = (await generate("flashcards", { cardCount: 8 })).body.data;
    const due = await api("GET", `/api/flashcards/review/due?flashcardSetId=${set.flashcardSet.id}`, { token: owner.token });
    expect(due.status).toBe(200);
    expect(due.body.data.totalDue).toBe(set.flashcards.length);
    const card = due.body.data.cards[0];
    expect(Date.parse(card.nextDueByRating.again)).toBeLessThan(Date.parse(card.nextDueByRating.easy));

    const reviewed = await api("POST", `/api/flashcards/${set.flashcardSet.id}/cards/${card.id}/review`, {
      token: owner.token,
      body: { rating: "easy" },
    });
    expect(reviewed.status).toBe(200);
    const { flashcard, nextReviewAt } = reviewed.body.data;
    expect(flashcard.schedule).toMatchObject({ state: "REVIEW", reps: 1, lastReview: expect.any(String) });
    expect(Date.parse(nextReviewAt)).toBeGreaterThan(Date.now() + 24 * 3600_000);
    // The date the "easy" button promised when the card was listed (a moment earlier).
    expect(Math.abs(Date.parse(nextReviewAt) - Date.parse(card.nextDueByRating.easy))).toBeLessThan(60_000);

    const after = await api("GET", `/api/flashcards/review/due?flashcardSetId=${set.flashcardSet.id}`, { token: owner.token });
    expect(after.body.data.totalDue).toBe(set.flashcards.length - 1);
    expect(after.body.data.cards.map((entry: Identified) => entry.id)).not.toContain(card.id);

    const badRating = await api("POST", `/api/flashcards/${set.flashcardSet.id}/cards/${card.id}/review`, {
      token: owner.token,
      body: { rating: "perfect" },
    });
    expect(badRating.status).toBe(400);
    expect(badRating.body.details).toEqual([{ field: "rating", message: "must be one of again, hard, good, easy" }]);
  });

  it("exports a set as CSV and as an Anki package a SQLite reader opens", async () => {
    const set = (await generate("flashcards", { cardCount: 8 })).body.data;
    const csv = await fetch(`${stack.gatewayUrl}/api/flashcards/${set.flashcardSet.id}/export?format=csv`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="?[\w-]+\.csv"?$/);
    const text = (await csv.text()).replace(/^\uFEFF/, "");
    expect(text.split(/\r?\n/)[0]).toMatch(/^front,back/);
    expect(text).toContain(set.flashcards[0].back.split("\n")[0].slice(0, 20).replace(/"/g, '""'));

    const apkg = await fetch(`${stack.gatewayUrl}/api/flashcards/${set.flashcardSet.id}/export?format=apkg`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(apkg.status).toBe(200);
    expect(apkg.headers.get("content-disposition")).toMatch(/\.apkg"?$/);
    const files = unzipSync(new Uint8Array(await apkg.arrayBuffer()));
    expect(new TextDecoder().decode(files.media)).toBe("{}");
    const SQL = await initSqlJs();
    const database = new SQL.Database(files["collection.anki2"]);
    try {
      expect(database.exec("PRAGMA integrity_check")[0].values).toEqual([["ok"]]);
      expect(database.exec("SELECT count(*) FROM notes")[0].values[0][0]).toBe(set.flashcards.length);
      expect(database.exec("SELECT count(*) FROM cards")[0].values[0][0]).toBe(set.flashcards.length);
    } finally {
      database.close();
    }

    const badFormat = await api("GET", `/api/flashcards/${set.flashcardSet.id}/export?format=pdf`, { token: owner.token });
    expect(badFormat.status).toBe(400);
  });

  it("answers 404 for another user's material, course and notes, and 400 with details for bad bodies", async () => {
    const sets = (await api("GET", "/api/flashcards", { token: owner.token })).body.data;
    const quizzes = (await api("GET", "/api/quizzes", { token: owner.token })).body.data;
    const guides = (await api("GET", "/api/study-guides", { token: owner.token })).body.data;
    const [set, quiz, guide] = [sets[0], quizzes[0], guides[0]];
    const foreign = [
      ["GET", `/api/flashcards/${set.id}`],
      ["DELETE", `/api/flashcards/${set.id}`],
      ["GET", `/api/flashcards/${set.id}/export?format=csv`],
      ["GET", `/api/quizzes/${quiz.id}`],
      ["DELETE", `/api/quizzes/${quiz.id}`],
      ["GET", `/api/quizzes/${quiz.id}/attempts`],
      ["GET", `/api/study-guides/${guide.id}`],
      ["DELETE", `/api/study-guides/${guide.id}`],
      ["GET", `/api/notes/${owner.noteId}/flashcards`],
      ["GET", `/api/notes/${owner.noteId}/quizzes`],
      ["GET", `/api/notes/${owner.noteId}/study-guides`],
    ];
    for (const [method, path] of foreign) {
      const response = await api(method, path, { token: stranger.token });
      expect([method, path, response.status, response.body.code]).toEqual([method, path, 404, "NOT_FOUND"]);
    }
    const review = await api("POST", `/api/flashcards/${set.id}/cards/${set.flashcards[0].id}/review`, {
      token: stranger.token,
      body: { rating: "good" },
    });
    expect(review.status).toBe(404);
    const validate = await api("POST", "/api/quizzes/validate", { token: stranger.token, body: { quizId: quiz.id, responses: [] } });
    expect(validate.status).toBe(404);
    // The stranger's own course with the owner's note; the owner's course with the stranger's token.
    for (const kind of ["flashcards", "quizzes", "study-guides"]) {
      for (const courseId of [stranger.courseId, owner.courseId]) {
        const response = await api("POST", `/api/${kind}/generate`, { token: stranger.token, body: { courseId, noteIds: [owner.noteId] } });
        expect([kind, courseId, response.status, response.body.code]).toEqual([kind, courseId, 404, "NOT_FOUND"]);
      }
    }
    expect((await api("GET", "/api/flashcards", { token: stranger.token })).body.data).toEqual([]);

    const malformed = await api("POST", "/api/flashcards/generate", {
      token: owner.token,
      body: { courseId: owner.courseId, noteIds: ["not-a-note"], cardCount: 0 },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ success: false, code: "VALIDATION_ERROR" });
    expect(malformed.body.details).toEqual(
      expect.arrayContaining([
        { field: "noteIds.0", message: "must be a note id" },
        { field: "cardCount", message: "must be at least 1" },
      ]),
    );
    const missing = await api("POST", "/api/study-guides/generate", { token: owner.token, body: { noteIds: [] } });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual(
      expect.arrayContaining([
        { field: "courseId", message: "is required" },
        { field: "noteIds", message: "must name at least one note" },
      ]),
    );
    expect((await api("POST", "/api/quizzes/validate", { token: owner.token, body: { quizId: quiz.id, responses: "all of them" } })).status).toBe(
      400,
    );
    const malformedQuizId = await api("POST", "/api/quizzes/validate", { token: owner.token, body: { quizId: "not-a-quiz", responses: [] } });
    expect(malformedQuizId.status).toBe(400);
    expect(malformedQuizId.body.details).toEqual([{ field: "quizId", message: "must be a quiz id (UUID)" }]);
    expect((await api("POST", "/api/quizzes/validate", { token: owner.token, body: { quizId: randomUUID(), responses: [] } })).status).toBe(404);
    expect((await api("GET", "/api/flashcards", {})).status).toBe(401);
  });

  it("refuses material from a note that is not transcribed yet (409), and generates anew when the note's content changed", async () => {
    const pending = await uploadLecture(owner.token, owner.courseId);
    const early = await api("POST", "/api/flashcards/generate", {
      token: owner.token,
      body: { courseId: owner.courseId, noteIds: [pending.noteId] },
    });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ success: false, code: "NOTE_NOT_TRANSCRIBED" });
    await transcribed(owner.token, pending.jobId);

    await api("PUT", `/api/notes/${pending.noteId}/user-notes`, { token: owner.token, body: { userNotes: USER_NOTES.slice(0, 4) } });
    const first = await api("POST", "/api/flashcards/generate", {
      token: owner.token,
      body: { courseId: owner.courseId, noteIds: [pending.noteId] },
    });
    expect([first.status, first.body.code]).toEqual([201, undefined]);
    const before = first.body.data.flashcardSet.id;
    await api("PUT", `/api/notes/${pending.noteId}/user-notes`, { token: owner.token, body: { userNotes: USER_NOTES } });
    const after = await api("POST", "/api/flashcards/generate", {
      token: owner.token,
      body: { courseId: owner.courseId, noteIds: [pending.noteId] },
    });
    expect(after.status).toBe(201);
    expect(after.body.data.flashcardSet.id).not.toBe(before);

    // Deleting the note keeps what was generated from it, without the dangling link.
    expect((await api("DELETE", `/api/notes/${pending.noteId}`, { token: owner.token })).status).toBe(200);
    const kept = await eventually(async () => {
      const { body } = await api("GET", `/api/flashcards/${before}`, { token: owner.token });
      return body.data.noteId === null ? body.data : undefined;
    }, 10_000);
    expect(kept).toMatchObject({ noteIds: [], note: null });
    expect(kept.flashcards.every((card: { source: unknown }) => card.source === null)).toBe(true);
  });

  it("deletes material one by one, and all of a course's material with the course", async () => {
    const set = (await generate("flashcards", { cardCount: 8 })).body.data.flashcardSet;
    expect((await api("DELETE", `/api/flashcards/${set.id}`, { token: owner.token })).status).toBe(200);
    expect((await api("GET", `/api/flashcards/${set.id}`, { token: owner.token })).status).toBe(404);
    const quiz = (await generate("quizzes", {})).body.data.quiz;
    const deletedQuiz = await api("DELETE", `/api/quizzes/${quiz.id}`, { token: owner.token });
    expect([deletedQuiz.status, deletedQuiz.body.success]).toEqual([200, true]);
    expect((await api("GET", `/api/quizzes/${quiz.id}`, { token: owner.token })).status).toBe(404);
    expect((await api("GET", `/api/quizzes/${quiz.id}/attempts`, { token: owner.token })).status).toBe(404);
    const guide = (await generate("study-guides", {})).body.data;
    expect((await api("DELETE", `/api/study-guides/${guide.id}`, { token: owner.token })).status).toBe(200);
    expect((await api("GET", `/api/study-guides/${guide.id}`, { token: owner.token })).status).toBe(404);
    expect((await api("DELETE", `/api/study-guides/${guide.id}`, { token: owner.token })).status).toBe(404);
    // Once deleted, the same note content generates new material rather than returning the deleted one.
    const regenerated = (await generate("study-guides", {})).body.data;
    expect(regenerated.id).not.toBe(guide.id);

    expect((await api("DELETE", `/api/courses/${owner.courseId}`, { token: owner.token })).status).toBe(200);
    await eventually(async () => {
      const [sets, quizzes, guides] = await Promise.all(
        ["flashcards", "quizzes", "study-guides"].map((kind) => api("GET", `/api/${kind}?courseId=${owner.courseId}`, { token: owner.token })),
      );
      return sets.body.data.length + quizzes.body.data.length + guides.body.data.length === 0;
    }, 15_000);
  });
});
