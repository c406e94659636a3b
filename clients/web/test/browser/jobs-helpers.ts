import { completeImportInDatabase, eventually, sharedTestStack } from "@study/testkit";
import { Client } from "pg";
import type { AppBrowser } from "./harness";

/**
 * Material for the courses', jobs' and account's browser tests, made through the API with the page's own cookie
 * session: courses, and imports in each state. A real upload creates a note and its import job; media's worker then
 * takes it. A recording that only looks like one (a WAV header over text) is failed by the worker, as a broken
 * upload is; states the worker passes through too quickly to be seen (an import under way) are written into media's
 * database once the worker is done with the job, as its own progress reports leave them.
 */

/** Headers of a state-changing call from the app's origin (the gateway checks Origin on cookie sessions). */
const originOf = (app: AppBrowser) => ({ Origin: new URL(app.apiUrl).origin });

type JsonObject = Record<string, unknown>;

async function answerOf(response: { ok(): boolean; status(): number; text(): Promise<string> }, request: string): Promise<JsonObject> {
  const text = await response.text();
  if (!response.ok()) throw new Error(`${request} answered ${String(response.status())}: ${text}`);
  const body = JSON.parse(text) as { data?: JsonObject };
  if (!body.data) throw new Error(`${request} answered without data: ${text}`);
  return body.data;
}

const idOf = (value: unknown, what: string): string => {
  const id = typeof value === "object" && value !== null ? (value as JsonObject).id : undefined;
  if (typeof id !== "string") throw new Error(`no id of ${what} in ${JSON.stringify(value)}`);
  return id;
};

/** A course of the signed-in user. */
export async function createCourse(app: AppBrowser, fields: { name: string } & JsonObject): Promise<string> {
  const response = await app.context.request.post(`${app.apiUrl}/api/courses`, { data: fields, headers: originOf(app) });
  return idOf(await answerOf(response, "POST /api/courses"), "the course");
}

/** Half a second of silence as a WAV file (16 kHz, mono, 16-bit PCM). */
function silentWav(): Buffer {
  const samples = 8000;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

/** A WAV header over text: the upload recognises a WAV file by its first bytes, the worker finds no audio in it. */
const brokenWav = () => Buffer.concat([Buffer.from("RIFF\u0000\u0010\u0000\u0000WAVE", "latin1"), Buffer.from("not audio at all\n".repeat(200))]);

export interface Upload {
  noteId: string;
  jobId: string;
}

/** Uploads a recording into a course: its note (titled `title`) and import job. */
export async function upload(app: AppBrowser, courseId: string, title: string, kind: "silence" | "broken" = "silence"): Promise<Upload> {
  const response = await app.context.request.post(`${app.apiUrl}/api/notes/upload/audio`, {
    headers: originOf(app),
    multipart: { courseId, title, file: { name: `${kind}.wav`, mimeType: "audio/wav", buffer: kind === "silence" ? silentWav() : brokenWav() } },
  });
  const data = await answerOf(response, "POST /api/notes/upload/audio");
  return { noteId: idOf(data.note, "the note"), jobId: idOf(data.importJob, "the import job") };
}

/** The job's status through the API. */
export async function jobStatus(app: AppBrowser, jobId: string): Promise<string> {
  const job = await answerOf(await app.context.request.get(`${app.apiUrl}/api/jobs/${jobId}`), "GET /api/jobs/{id}");
  return String(job.status);
}

/** Waits until the worker has finished with the job (completed, failed or cancelled); its final status. */
export function finished(app: AppBrowser, jobId: string): Promise<string> {
  return eventually(
    async () => {
      const status = await jobStatus(app, jobId);
      return ["COMPLETED", "FAILED", "CANCELLED"].includes(status) ? status : undefined;
    },
    60_000,
    200,
  );
}

/** Cancels the job through the API (a job the worker finished meanwhile answers 400, and stays as it is). */
export async function cancel(app: AppBrowser, jobId: string): Promise<void> {
  const response = await app.context.request.post(`${app.apiUrl}/api/jobs/${jobId}/cancel`, { headers: originOf(app) });
  if (!response.ok() && response.status() !== 400) throw new Error(`POST /api/jobs/${jobId}/cancel answered ${String(response.status())}`);
}

async function withMediaDatabase<T>(work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: sharedTestStack().databaseUrl("media") });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** An import that completed: uploaded, cancelled at once (the worker leaves it), then finished as the worker finishes one. */
export async function completedImport(app: AppBrowser, courseId: string, title: string): Promise<Upload> {
  const made = await upload(app, courseId, title);
  await cancel(app, made.jobId);
  await withMediaDatabase((db) =>
    completeImportInDatabase(db, made, { content: "Silence.", summary: "Nothing was said.", segments: [{ start: 0, end: 0.5, text: "Silence." }] }),
  );
  return made;
}

/** An import the worker failed (a broken recording): its final state, with the worker's error message. */
export async function failedImport(app: AppBrowser, courseId: string, title: string): Promise<Upload> {
  const made = await upload(app, courseId, title, "broken");
  const status = await finished(app, made.jobId);
  if (status !== "FAILED") throw new Error(`the broken recording's import ended ${status}, not FAILED`);
  return made;
}

/**
 * An import under way at `progress` %: a failed one (the worker is done with it, so nothing moves it on) put back
 * IN_PROGRESS as the worker's progress reports leave a job (its note
 * being transcribed); the page can cancel it.
 */
export async function importUnderWay(app: AppBrowser, courseId: string, title: string, progress: number): Promise<Upload> {
  const made = await failedImport(app, courseId, title);
  await withMediaDatabase(async (db) => {
    await db.query(
      `UPDATE import_job SET status = 'IN_PROGRESS', progress = $2, stage = 'TRANSCRIPTION', error_message = NULL, completed_at = NULL,
         started_at = now(), version = version + 1 WHERE id = $1`,
      [made.jobId, progress],
    );
    await db.query(`UPDATE note SET transcription_status = 'PROCESSING' WHERE id = $1`, [made.noteId]);
  });
  return made;
}

/** An import the user cancelled: uploaded and cancelled at once, marked cancelled whatever the worker had done. */
export async function cancelledImport(app: AppBrowser, courseId: string, title: string): Promise<Upload> {
  const made = await upload(app, courseId, title);
  await cancel(app, made.jobId);
  await withMediaDatabase((db) =>
    db.query(
      `UPDATE import_job SET status = 'CANCELLED', error_message = 'Cancelled by user', completed_at = COALESCE(completed_at, now()),
         version = version + 1 WHERE id = $1`,
      [made.jobId],
    ),
  );
  return made;
}

/** Marks the user's e-mail address confirmed, as opening the mailed link does (in the gateway's database). */
export async function confirmEmailInDatabase(email: string): Promise<void> {
  const db = new Client({ connectionString: sharedTestStack().databaseUrl("gateway") });
  await db.connect();
  try {
    await db.query(`UPDATE "user" SET "emailVerified" = true WHERE email = $1`, [email]);
  } finally {
    await db.end();
  }
}
