import { readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { completeImportInDatabase, librivoxClip, runFfmpeg, sharedTestStack, type TranscribedMaterial } from "@study/testkit";
import type { Page } from "playwright-core";
import { Client } from "pg";
import type { AppBrowser } from "./harness";

/**
 * What the notes' browser tests share: recordings made from real speech (Debian's pocketsphinx test data, which the
 * offline transcriber understands), courses and notes made through the API with the browser's own cookies, and
 * finished transcripts written into media's database (a transcription takes seconds to minutes; the note page
 * tests are about the page).
 */

/** The three clips of "lecture.mp3", one after another, with what is said in each. */
export const LECTURE: TranscribedMaterial["segments"] = [
  { start: 0, end: 2.99, text: "He was not an ill disposed young man" },
  { start: 2.99, end: 8.29, text: "unless to be rather cold hearted and rather selfish is to be ill disposed" },
  { start: 8.29, end: 14.34, text: "had he married a more amiable woman he might have been made still more respectable" },
];

export interface Recordings {
  /** ≈ 14 s of speech as MP3 (three clips). */
  lecture: string;
  /** ≈ 3 s of speech as WAV. */
  short: string;
  /** ≈ 25 s of speech as MP3 (five clips): long enough to cancel while it is transcribed. */
  long: string;
  /** A "video": a still picture over speech, H.264 + AAC in MP4. */
  video: string;
  /** Text that calls itself MP3: accepted as a link (by its name), then refused by the worker. */
  broken: string;
  /** A small text file to attach to a note. */
  handout: string;
}

const concat = (ids: string[]) => [
  ...ids.flatMap((id) => ["-i", librivoxClip(id)]),
  "-filter_complex",
  `${ids.map((_, index) => `[${String(index)}:a]`).join("")}concat=n=${String(ids.length)}:v=0:a=1[out]`,
  "-map",
  "[out]",
];

/** Makes the recordings into `folder` (ffmpeg, one at a time: the machine's cores are shared). */
export async function makeRecordings(folder: string): Promise<Recordings> {
  const recordings: Recordings = {
    lecture: join(folder, "lecture.mp3"),
    short: join(folder, "short.wav"),
    long: join(folder, "long.mp3"),
    video: join(folder, "lecture.mp4"),
    broken: join(folder, "broken.mp3"),
    handout: join(folder, "handout.txt"),
  };
  await runFfmpeg([...concat(["0880", "0890", "0920"]), recordings.lecture]);
  await runFfmpeg(["-i", librivoxClip("0880"), recordings.short]);
  await runFfmpeg([...concat(["0870", "0880", "0890", "0920", "0930"]), recordings.long]);
  await runFfmpeg([
    ...["-f", "lavfi", "-i", "color=c=navy:s=160x120:r=10", "-i", librivoxClip("0880")],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", recordings.video],
  ]);
  await writeFile(recordings.broken, "not audio at all\n".repeat(100));
  await writeFile(recordings.handout, "Reading list: Sense and Sensibility, chapter 1.\n");
  return recordings;
}

/** Headers of a state-changing API call from the app's origin (the gateway checks Origin on cookie sessions). */
const originOf = (app: AppBrowser) => ({ Origin: new URL(app.apiUrl).origin });

async function answerOf(response: { ok(): boolean; status(): number; text(): Promise<string> }, request: string) {
  const text = await response.text();
  if (!response.ok()) throw new Error(`${request} answered ${String(response.status())}: ${text}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

/** A course of the signed-in user, made through the API. */
export async function createCourse(app: AppBrowser, name: string): Promise<string> {
  const response = await app.context.request.post(`${app.apiUrl}/api/courses`, { data: { name }, headers: originOf(app) });
  const { data } = await answerOf(response, "POST /api/courses");
  return String(data.id);
}

/** An uploaded recording through the API: its note and import job. */
export async function uploadRecording(app: AppBrowser, courseId: string, path: string): Promise<{ noteId: string; jobId: string }> {
  const response = await app.context.request.post(`${app.apiUrl}/api/notes/upload/audio`, {
    headers: originOf(app),
    multipart: {
      courseId,
      file: { name: basename(path), mimeType: path.endsWith(".wav") ? "audio/wav" : "audio/mpeg", buffer: await readFile(path) },
    },
  });
  const { data } = await answerOf(response, "POST /api/notes/upload/audio");
  const note = data.note as { id: string };
  const job = data.importJob as { id: string };
  return { noteId: note.id, jobId: job.id };
}

/**
 * A note with a finished transcript: the recording uploaded, its import cancelled at once (the worker leaves it),
 * then completed in media's database with `segments` as its transcript, as media's worker completes one.
 */
export async function noteWithTranscript(
  app: AppBrowser,
  courseId: string,
  path: string,
  segments: TranscribedMaterial["segments"],
  duration?: number,
): Promise<string> {
  const { noteId, jobId } = await uploadRecording(app, courseId, path);
  const cancel = await app.context.request.post(`${app.apiUrl}/api/jobs/${jobId}/cancel`, { headers: originOf(app) });
  // A job the worker finished in between cannot be cancelled; it is completed below either way.
  if (!cancel.ok() && cancel.status() !== 400) throw new Error(`POST /api/jobs/${jobId}/cancel answered ${String(cancel.status())}`);
  const mediaDb = new Client({ connectionString: sharedTestStack().databaseUrl("media") });
  await mediaDb.connect();
  try {
    await mediaDb.query("DELETE FROM transcript_segment WHERE note_id = $1", [noteId]);
    await completeImportInDatabase(
      mediaDb,
      { noteId, jobId },
      { content: segments.map((segment) => segment.text).join(" "), summary: "A young man, and what he might have been.", segments, duration },
    );
  } finally {
    await mediaDb.end();
  }
  return noteId;
}

/** The page's audio player as the test reads it. */
export const player = (page: Page) =>
  page.evaluate(() => {
    const audio = document.querySelector("audio");
    return audio ? { currentTime: audio.currentTime, paused: audio.paused, src: audio.currentSrc } : null;
  });

/** Waits until the player is playing at or after `second` (and before `before`, when given). */
export async function waitForPlaying(page: Page, second: number, before = Number.POSITIVE_INFINITY): Promise<void> {
  await page.waitForFunction(
    ([from, to]) => {
      const audio = document.querySelector("audio");
      return !!audio && !audio.paused && audio.currentTime >= from && audio.currentTime < to;
    },
    [second, before],
  );
}
