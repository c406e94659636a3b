/**
 * `npm run bench:chat`: chat's answers on the labelled set of bench/chat/ (two courses of lecture notes and
 * documents, 61 questions each naming the passage that answers it, or none), through the whole stack:
 *
 *   1. material    — each lecture becomes a note as a finished import leaves it (media's CreateImport, then the
 *                    transcript, summary and timed segments written as media's worker writes them) and the
 *                    student's own notes are saved through PUT /api/notes/:id/user-notes; each document is a PDF
 *                    of its pages uploaded through POST /api/documents/upload and read by the documents worker.
 *                    Chat indexes all of it from the events, as in production; the bench waits until it has;
 *   2. retrieval   — recall@5: for each answerable question, is a labelled passage among the five passages chat's
 *                    index returns for it (with the previous question for a follow-up, as chat asks)?
 *   3. answers     — every question through POST /api/chat/sessions/:id/messages as server-sent events (a new
 *                    session per question; a follow-up in its question's session): citation precision of the
 *                    engine (share of citations that point at a labelled passage), answers citing a labelled
 *                    passage, "not covered" said for unanswerable questions, time to the first event, to the first
 *                    piece of text and to the end. --rounds repeats the questions (fresh sessions) for the times.
 *
 * Options: --rounds=3. The engine is the offline one unless OPENAI_API_KEY is set in the environment.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { media } from "@study/contracts";
import { PrismaPassageIndex } from "@study/chat/dist/adapters/db/prisma-passage-index";
import { retrievalQuery } from "@study/chat/dist/domain/chat-session";
import { PrismaClient } from "@study/chat/dist/generated/prisma/client";
import { prismaOptions } from "@study/db";
import { createClient } from "@study/grpc";
import { completeImportInDatabase, httpClient, signUpUser, uploadMultipart } from "@study/testkit";
import { pdfOfPages } from "@study/testkit/documents";
import { cleanupOnExit } from "./cleanup";
import { REPO_ROOT, RESULTS_DIR, option, percentile, sleep, startBenchStack } from "./common";

const SET_DIR = join(REPO_ROOT, "bench", "chat");
const ROUNDS = option("rounds", 3, 1);
const say = (line: string) => process.stdout.write(`[bench:chat] ${line}\n`);
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

// ---------------------------------------------------------------------------------------------- the labelled set

interface Segment {
  start: number;
  end: number;
  text: string;
}
interface LabelledNote {
  key: string;
  title: string;
  durationSeconds: number;
  summary: string | null;
  userNotes?: { timestamp: number; content: string }[];
  segments: Segment[];
}
interface LabelledDocument {
  key: string;
  title: string;
  fileName: string;
  pages: { page: number; text: string }[];
}
interface LabelledCourse {
  key: string;
  name: string;
  description: string;
  notes: LabelledNote[];
  documents: LabelledDocument[];
}
interface PassageRef {
  type: "note" | "document";
  sourceKey: string;
  segmentIndex?: number;
  startTime?: number;
  userNoteIndex?: number;
  summary?: boolean;
  page?: number;
}
interface LabelledQuestion {
  id: string;
  courseKey: string;
  question: string;
  passages: PassageRef[];
  tags: string[];
  followUpOf?: string;
}

const { courses } = JSON.parse(readFileSync(join(SET_DIR, "courses.json"), "utf8")) as { courses: LabelledCourse[] };
const { questions } = JSON.parse(readFileSync(join(SET_DIR, "questions.json"), "utf8")) as { questions: LabelledQuestion[] };

/** The label of a passage: "lecture#seg12", "lecture#summary", "lecture#user0", "doc#page3". */
const labelOf = (ref: PassageRef): string =>
  ref.segmentIndex !== undefined
    ? `${ref.sourceKey}#seg${ref.segmentIndex}`
    : ref.userNoteIndex !== undefined
      ? `${ref.sourceKey}#user${ref.userNoteIndex}`
      : ref.summary
        ? `${ref.sourceKey}#summary`
        : `${ref.sourceKey}#page${ref.page}`;

/** A passage or citation as chat shows it. */
interface Located {
  sourceId: string;
  startTime: number | null;
  page: number | null;
  text: string;
}

/**
 * The labels a passage of chat's index (or a citation of one) covers. A transcript passage may join short segments:
 * it covers the segments from its start time up to the next passage's (`passageStarts`). Summaries and user notes
 * are found by their text.
 */
function labelsOf(located: Located, sourceKeyOf: Map<string, string>, passageStarts: Map<string, number[]>): string[] {
  const key = sourceKeyOf.get(located.sourceId);
  if (!key) return [];
  const note = courses.flatMap((course) => course.notes).find((candidate) => candidate.key === key);
  if (located.page !== null) return [`${key}#page${located.page}`];
  if (!note) return [];
  const startTime = located.startTime;
  if (startTime !== null) {
    const starts = passageStarts.get(key) ?? [];
    const next = starts.find((start) => start > startTime + 1e-6) ?? Number.POSITIVE_INFINITY;
    return note.segments.flatMap((segment, index) => (segment.start >= startTime - 1e-6 && segment.start < next ? [`${key}#seg${index}`] : []));
  }
  const text = located.text.replace(/…$/u, "").trim();
  if (note.summary?.includes(text)) return [`${key}#summary`];
  const userNote = (note.userNotes ?? []).findIndex((entry) => entry.content.includes(text));
  return userNote >= 0 ? [`${key}#user${userNote}`] : [];
}

// ---------------------------------------------------------------------------------------------- SSE

interface AskTiming {
  firstEventMs: number;
  firstTokenMs: number;
  totalMs: number;
}
interface Citation {
  type: string;
  id: string;
  startTime: number | null;
  page: number | null;
  quote: string;
}

/** Asks through the gateway as a streaming client does, and reads the server-sent events to the end. */
async function askStreaming(
  gatewayUrl: string,
  token: string,
  sessionId: string,
  question: string,
): Promise<{ timing: AskTiming; citations: Citation[]; text: string }> {
  const started = performance.now();
  const response = await fetch(`${gatewayUrl}/api/chat/sessions/${sessionId}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({ question }),
  });
  if (response.status !== 200 && response.status !== 201) throw new Error(`ask answered ${response.status}: ${await response.text()}`);
  if (!response.body) throw new Error("ask answered without a body");
  let firstEventMs = -1;
  let firstTokenMs = -1;
  let text = "";
  let citations: Citation[] = [];
  let done = false;
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: ?(.*)$/mu.exec(block)?.[1]?.trim() ?? "message";
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /u, ""))
        .join("\n");
      if (!data) continue;
      const now = performance.now() - started;
      if (firstEventMs < 0) firstEventMs = now;
      const payload = JSON.parse(data) as { text?: string; citations?: Citation[] };
      if (event === "token") {
        if (firstTokenMs < 0) firstTokenMs = now;
        text += payload.text ?? "";
      } else if (event === "citations") citations = payload.citations ?? [];
      else if (event === "done") done = true;
      else if (event === "error") throw new Error(`ask streamed an error: ${data}`);
    }
  }
  if (!done) throw new Error("the answer's stream ended without its done event");
  return { timing: { firstEventMs, firstTokenMs, totalMs: performance.now() - started }, citations, text };
}

// ---------------------------------------------------------------------------------------------- the run

async function main(): Promise<void> {
  say(`${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; rounds ${ROUNDS}`);
  const baseDir = mkdtempSync(join(tmpdir(), "bench-chat-"));
  const logs: string[] = [];
  const { steps, cleanup } = cleanupOnExit(say, () => rmSync(baseDir, { recursive: true, force: true }));
  try {
    const engineEnv: Record<string, string> = process.env.OPENAI_API_KEY
      ? {
          OPENAI_API_KEY: process.env.OPENAI_API_KEY,
          OPENAI_BASE_URL: process.env.OPENAI_BASE_URL ?? "",
          OPENAI_MODEL: process.env.OPENAI_MODEL ?? "",
        }
      : {};
    const bench = await startBenchStack(baseDir, logs, steps, {
      services: ["courses", "media", "documents", "chat"],
      without: ["media-worker"],
      env: { CHAT_QUESTIONS_PER_HOUR: "100000", ...engineEnv },
    });
    const gatewayUrl = bench.stack.gatewayUrl;
    const api = httpClient(gatewayUrl);
    const mediaClient = createClient(media.MediaServiceClient, media.MediaServiceService, bench.stack.serviceAddresses.media);
    steps.push(() => mediaClient.close());
    const mediaDb = new Client({ connectionString: bench.databaseUrl("media") });
    const chatDb = new Client({ connectionString: bench.databaseUrl("chat") });
    await Promise.all([mediaDb.connect(), chatDb.connect()]);
    steps.push(
      () => mediaDb.end(),
      () => chatDb.end(),
    );

    // 1. material
    const student = await signUpUser(api, { name: `bench${randomBytes(3).toString("hex")}` });
    const courseIdOf = new Map<string, string>();
    const sourceKeyOf = new Map<string, string>();
    const segmentStarts = new Map<string, number[]>();
    const seedStarted = performance.now();
    for (const course of courses) {
      const created = await api<{ data: { id: string } }>("POST", "/api/courses", {
        token: student.token,
        body: { name: course.name, description: course.description },
      });
      if (created.status !== 201) throw new Error(`POST /api/courses answered ${created.status}`);
      const courseId = created.body.data.id;
      courseIdOf.set(course.key, courseId);
      for (const note of course.notes) {
        const { note: made, job } = await mediaClient.createImport({
          userId: student.userId,
          type: media.ImportType.IMPORT_TYPE_VIDEO_IMPORT,
          title: note.title,
          courseId,
          sourceUrl: `https://video.example.com/watch?v=${note.key}`,
          speedMultiplier: 2,
        });
        if (!made || !job) throw new Error("CreateImport answered without a note or job");
        sourceKeyOf.set(made.id, note.key);
        await completeImportInDatabase(
          mediaDb,
          { noteId: made.id, jobId: job.id },
          {
            content: note.segments.map((segment) => segment.text).join(" "),
            summary: note.summary,
            segments: note.segments,
            duration: note.durationSeconds,
          },
        );
        // Saving the student's notes announces the note (media.note.updated): chat indexes all of it from there.
        const saved = await api("PUT", `/api/notes/${made.id}/user-notes`, {
          token: student.token,
          body: { userNotes: (note.userNotes ?? []).map((entry) => ({ timestamp: entry.timestamp, content: entry.content, contentType: "text" })) },
        });
        if (saved.status !== 200) throw new Error(`PUT user-notes answered ${saved.status}: ${JSON.stringify(saved.body)}`);
      }
      for (const document of course.documents) {
        const path = join(baseDir, document.fileName.replace(/\.\w+$/u, ".pdf"));
        writeFileSync(path, await pdfOfPages(document.pages.map((page) => page.text)));
        const uploaded = await uploadMultipart(
          gatewayUrl,
          student.token,
          "/api/documents/upload",
          { courseId, title: document.title },
          {
            path,
            name: document.fileName.replace(/\.\w+$/u, ".pdf"),
            type: "application/pdf",
          },
        );
        if (uploaded.status !== 200) throw new Error(`document upload answered ${uploaded.status}: ${JSON.stringify(uploaded.body)}`);
        const { document: stored } = uploaded.body as { document: { id: string } };
        sourceKeyOf.set(stored.id, document.key);
      }
    }
    const sources = [...sourceKeyOf.keys()];
    for (;;) {
      const { rows } = await chatDb.query<{ count: string }>(
        "SELECT count(DISTINCT source_id) AS count FROM passage WHERE source_id = ANY($1::text[])",
        [sources],
      );
      if (Number(rows[0].count) === sources.length) break;
      if (performance.now() - seedStarted > 300_000) throw new Error(`chat indexed ${rows[0].count} of ${sources.length} sources in 5 minutes`);
      await sleep(200);
    }
    const { rows: passageCount } = await chatDb.query<{ count: string }>("SELECT count(*) AS count FROM passage");
    const indexedS = (performance.now() - seedStarted) / 1000;
    // Where each transcript passage of chat's index starts (a passage may join short segments).
    const { rows: starts } = await chatDb.query<{ source_id: string; start_time: number }>(
      "SELECT source_id, start_time FROM passage WHERE start_time IS NOT NULL ORDER BY start_time",
    );
    for (const row of starts) {
      const key = sourceKeyOf.get(row.source_id);
      if (key) segmentStarts.set(key, [...(segmentStarts.get(key) ?? []), row.start_time]);
    }
    say(`material: ${sources.length} notes and documents, ${passageCount[0].count} passages indexed by chat in ${indexedS.toFixed(1)} s`);

    // 2. retrieval: the top five of chat's own index (its adapter, on its database), queried as chat queries it.
    const chatPrisma = new PrismaClient(prismaOptions(bench.databaseUrl("chat"), 2));
    steps.push(() => chatPrisma.$disconnect());
    const index = new PrismaPassageIndex(chatPrisma);
    const byId = new Map(questions.map((question) => [question.id, question]));
    const answerable = questions.filter((question) => question.passages.length > 0);
    let found = 0;
    const misses: string[] = [];
    const details: Record<string, { wanted: string[]; top5: string[][]; cited?: string[][] }> = {};
    for (const question of answerable) {
      const previous = question.followUpOf ? byId.get(question.followUpOf)?.question : undefined;
      const passages = await index.retrieve(
        { userId: student.userId, courseId: courseIdOf.get(question.courseKey) ?? "", noteIds: [], documentIds: [] },
        retrievalQuery(question.question, previous ?? null),
        5,
      );
      const rows = passages.map((passage) => ({
        source_id: passage.sourceId,
        start_time: passage.startTime,
        page: passage.page,
        text: passage.text,
      }));
      const wanted = new Set(question.passages.map(labelOf));
      const hit = rows.some((row) =>
        labelsOf({ sourceId: row.source_id, startTime: row.start_time, page: row.page, text: row.text }, sourceKeyOf, segmentStarts).some((label) =>
          wanted.has(label),
        ),
      );
      if (hit) found += 1;
      else misses.push(question.id);
      details[question.id] = {
        wanted: [...wanted],
        top5: rows.map((row) =>
          labelsOf({ sourceId: row.source_id, startTime: row.start_time, page: row.page, text: row.text }, sourceKeyOf, segmentStarts),
        ),
      };
    }
    const recallAt5 = found / answerable.length;
    say(`retrieval: recall@5 ${round(recallAt5)} (${found}/${answerable.length}); missed: ${misses.join(", ") || "none"}`);

    // 3. answers through the gateway
    const timings: AskTiming[] = [];
    let citationCount = 0;
    let citationsCorrect = 0;
    let answersCitingLabelled = 0;
    let unanswerableSaidSo = 0;
    let answeredAtAll = 0;
    const unanswerable = questions.filter((question) => question.passages.length === 0);
    for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
      const sessionOf = new Map<string, string>();
      for (const question of questions) {
        let sessionId = question.followUpOf ? sessionOf.get(question.followUpOf) : undefined;
        if (!sessionId) {
          const created = await api<{ data: { session: { id: string } } }>("POST", "/api/chat/sessions", {
            token: student.token,
            body: { courseId: courseIdOf.get(question.courseKey) },
          });
          if (created.status !== 201) throw new Error(`POST /api/chat/sessions answered ${created.status}: ${JSON.stringify(created.body)}`);
          sessionId = created.body.data.session.id;
        }
        sessionOf.set(question.id, sessionId);
        const { timing, citations } = await askStreaming(gatewayUrl, student.token, sessionId, question.question);
        timings.push(timing);
        if (roundIndex > 0) continue; // quality is deterministic: measured once
        const wanted = new Set(question.passages.map(labelOf));
        (details[question.id] ??= { wanted: [...wanted], top5: [] }).cited = citations.map((citation) =>
          labelsOf({ sourceId: citation.id, startTime: citation.startTime, page: citation.page, text: citation.quote }, sourceKeyOf, segmentStarts),
        );
        if (wanted.size === 0) {
          if (citations.length === 0) unanswerableSaidSo += 1;
          continue;
        }
        if (citations.length > 0) answeredAtAll += 1;
        let citesLabelled = false;
        for (const citation of citations) {
          citationCount += 1;
          const labels = labelsOf(
            { sourceId: citation.id, startTime: citation.startTime, page: citation.page, text: citation.quote },
            sourceKeyOf,
            segmentStarts,
          );
          if (labels.some((label) => wanted.has(label))) {
            citationsCorrect += 1;
            citesLabelled = true;
          }
        }
        if (citesLabelled) answersCitingLabelled += 1;
      }
    }
    const sorted = (pick: (timing: AskTiming) => number) => timings.map(pick).sort((a, b) => a - b);
    const latency = (pick: (timing: AskTiming) => number) => {
      const values = sorted(pick);
      return { p50: round(percentile(values, 50), 1), p90: round(percentile(values, 90), 1), max: round(values[values.length - 1], 1) };
    };
    const result = {
      benchmark: "chat",
      at: new Date().toISOString(),
      machine: { cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      engine: process.env.OPENAI_API_KEY ? "openai" : "offline",
      set: {
        questions: questions.length,
        answerable: answerable.length,
        unanswerable: unanswerable.length,
        sources: sources.length,
        passages: Number(passageCount[0].count),
      },
      indexingSeconds: round(indexedS, 1),
      retrieval: { recallAt5: round(recallAt5), found, misses },
      answers: {
        citationPrecision: round(citationCount === 0 ? 0 : citationsCorrect / citationCount),
        citations: citationCount,
        answersCitingALabelledPassage: round(answersCitingLabelled / answerable.length),
        answerableAnsweredWithCitations: round(answeredAtAll / answerable.length),
        unanswerableSaidNotCovered: `${unanswerableSaidSo}/${unanswerable.length}`,
      },
      details,
      latencyMs: {
        asks: timings.length,
        firstEvent: latency((timing) => timing.firstEventMs),
        firstToken: latency((timing) => timing.firstTokenMs),
        total: latency((timing) => timing.totalMs),
      },
    };
    say(`answers: ${JSON.stringify(result.answers)}`);
    say(`latency (ms, ${timings.length} asks): ${JSON.stringify(result.latencyMs)}`);
    if (!existsSync(RESULTS_DIR)) mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `chat-${result.at.replace(/[:.]/gu, "-")}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    say(`written to ${file}`);
  } catch (error) {
    say(`failed: ${error instanceof Error ? error.message : String(error)}`);
    say(logs.slice(-30).join("\n"));
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

void main();
