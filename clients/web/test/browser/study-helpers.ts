import { completeImportInDatabase, eventually, sharedTestStack, type TranscribedMaterial } from "@study/testkit";
import { Client } from "pg";
import type { AppBrowser } from "./harness";

/**
 * Material for the study pages' browser tests: a course with a transcribed lecture note, made through the API in
 * the page's own cookie session. An import is transcribed from real audio (seconds to minutes), so the note is
 * created by a real upload and its import finished in media's database, as media's worker leaves a transcribed
 * one (completeImportInDatabase); saving the student's notes then announces the note to the other services.
 */

/** A lecture whose sentences state facts the offline generator makes cards and questions of; one starts at 12:04. */
export const LECTURE: TranscribedMaterial["segments"] = [
  { start: 4, end: 16, text: "Good morning. Today we look at how bacteria are told apart under the microscope, starting with the Gram stain." },
  { start: 16, end: 31, text: "The Gram stain was introduced by Hans Christian Gram, a Danish physician, in 1884, and it is still the first test." },
  {
    start: 31,
    end: 47,
    text: "Gram-positive bacteria keep the crystal violet dye because their thick peptidoglycan wall holds it, so they look purple.",
  },
  {
    start: 47,
    end: 62,
    text: "Gram-negative bacteria lose the violet dye when washed with alcohol and take up the safranin counterstain, so they look pink.",
  },
  { start: 62, end: 80, text: "Peptidoglycan is a mesh of sugars and amino acids that forms the cell wall of bacteria." },
  {
    start: 724,
    end: 741,
    text: "Penicillin is an antibiotic that blocks the building of peptidoglycan, so it works best against Gram-positive bacteria.",
  },
  { start: 741, end: 760, text: "Escherichia coli is a Gram-negative bacterium that lives in the human gut." },
  { start: 760, end: 781, text: "Staphylococcus aureus is a Gram-positive bacterium that can cause skin infections." },
  { start: 781, end: 800, text: "Alexander Fleming discovered penicillin in 1928 when a mould killed the bacteria on a culture plate." },
];

/** The second the segment about penicillin starts at (12:04). */
export const PENICILLIN_SECOND = 724;

const USER_NOTES = [
  "Crystal violet is the first dye of the Gram stain.",
  "Safranin is the red counterstain that colours Gram-negative cells pink.",
  "An antibiotic is a medicine that kills bacteria or stops them from growing.",
];

/** Half a second of silence as a WAV file (16 kHz, mono, 16-bit): a real recording to upload, with nothing said. */
function silentWav(): Buffer {
  const samples = 8000;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

const origin = (app: AppBrowser) => ({ Origin: new URL(app.apiUrl).origin });

async function json(response: { ok(): boolean; status(): number; text(): Promise<string> }, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok()) throw new Error(`${what} answered ${response.status()}: ${text}`);
  return JSON.parse(text);
}

const field = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (current, key) => (typeof current === "object" && current !== null ? (current as Record<string, unknown>)[key] : undefined),
    value,
  );

const text = (value: unknown, ...path: string[]): string => {
  const found = field(value, ...path);
  if (typeof found !== "string") throw new Error(`no ${path.join(".")} in ${JSON.stringify(value)}`);
  return found;
};

export interface LectureNote {
  courseId: string;
  courseName: string;
  noteId: string;
  title: string;
}

/** A new course of the signed-in user with one transcribed lecture note in it. */
export async function courseWithLecture(
  app: AppBrowser,
  { courseName = "Microbiology", title = "Lecture 3: Gram staining" } = {},
): Promise<LectureNote> {
  const request = app.context.request;
  const course = await json(
    await request.post(`${app.apiUrl}/api/courses`, { data: { name: courseName }, headers: origin(app) }),
    "POST /api/courses",
  );
  const courseId = text(course, "data", "id");

  // A real upload creates the note and its import job; media's worker finds nothing said in it (or fails it): once
  // it is done, the import is finished as the lecture's transcription would finish it.
  const uploaded = await json(
    await request.post(`${app.apiUrl}/api/notes/upload/audio`, {
      multipart: { courseId, title, file: { name: "lecture-3.wav", mimeType: "audio/wav", buffer: silentWav() } },
      headers: origin(app),
    }),
    "POST /api/notes/upload/audio",
  );
  const noteId = text(uploaded, "data", "note", "id");
  const jobId = text(uploaded, "data", "importJob", "id");
  await eventually(
    async () => {
      const job = await json(await request.get(`${app.apiUrl}/api/jobs/${jobId}`), "GET /api/jobs/{id}");
      return ["COMPLETED", "FAILED", "CANCELLED"].includes(text(job, "data", "status"));
    },
    60_000,
    200,
  );
  const mediaDb = new Client({ connectionString: sharedTestStack().databaseUrl("media") });
  await mediaDb.connect();
  try {
    await completeImportInDatabase(
      mediaDb,
      { noteId, jobId },
      {
        content: LECTURE.map((segment) => segment.text).join(" "),
        summary: "How the Gram stain tells bacteria apart, and why it matters for antibiotics.",
        segments: LECTURE,
      },
    );
  } finally {
    await mediaDb.end();
  }
  await json(
    await request.put(`${app.apiUrl}/api/notes/${noteId}/user-notes`, {
      data: { userNotes: USER_NOTES.map((content, index) => ({ timestamp: 20 + index * 10, content, contentType: "text" })) },
      headers: origin(app),
    }),
    "PUT /api/notes/{id}/user-notes",
  );
  const note = await json(await request.get(`${app.apiUrl}/api/notes/${noteId}`), "GET /api/notes/{id}");
  if (text(note, "data", "transcriptionStatus") !== "COMPLETED") throw new Error(`the note is not transcribed: ${JSON.stringify(note)}`);
  return { courseId, courseName, noteId, title };
}
