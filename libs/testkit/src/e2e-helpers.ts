import { execFile } from "node:child_process";
import { openAsBlob } from "node:fs";
import { promisify } from "node:util";
import { checkAgainstDocument, cookieFrom, parseBody, type HttpResponse, type httpClient } from "./http-client";
import { eventually, uniqueSuffix } from "./test-env";

/**
 * Steps that end-to-end tests against the gateway repeat: signing up, multipart uploads, waiting for import
 * jobs, and making audio from real recorded speech. They throw plain Errors rather than using jest's `expect`,
 * because the kit also runs outside jest (the local stack, benchmarks).
 */

/** The JSON client `httpClient(gatewayUrl)` returns. */
export type GatewayClient = ReturnType<typeof httpClient>;

/** The name of the session cookie the gateway sets on sign-in. */
const SESSION_COOKIE = "better-auth.session_token";

/** The response, if its status is `expected`; otherwise an Error naming the request and showing the answer. */
export function requireStatus<T extends Pick<HttpResponse, "status" | "body">>(response: T, expected: number, request: string): T {
  if (response.status !== expected) {
    throw new Error(`${request} answered ${response.status} instead of ${expected}: ${JSON.stringify(response.body)}`);
  }
  return response;
}

export interface SignedUpUser {
  email: string;
  /** Bearer token of the new session. */
  token: string;
  /** The same session as a `name=value` Cookie header. */
  cookie: string;
  userId: string;
}

export interface SignUpOptions {
  /** Display name; the email address is made from it plus a unique suffix. */
  name: string;
  password?: string;
}

/** Signs a new user up with email and password (POST /api/auth/signup). */
export async function signUpUser(api: GatewayClient, { name, password = "correct horse battery" }: SignUpOptions): Promise<SignedUpUser> {
  const email = `${name.toLowerCase()}-${uniqueSuffix()}@example.com`;
  const response = requireStatus(await api("POST", "/api/auth/signup", { body: { name, email, password } }), 200, "POST /api/auth/signup");
  const cookie = cookieFrom(response.headers, SESSION_COOKIE);
  if (!cookie) throw new Error(`POST /api/auth/signup set no ${SESSION_COOKIE} cookie`);
  return { email, token: response.body.session.token, cookie, userId: response.body.user.id };
}

export interface SignedUpUserWithCourse extends SignedUpUser {
  courseId: string;
}

/** Signs a new user up and creates one course of theirs (POST /api/courses), which imports and material need. */
export async function signUpWithCourse(
  api: GatewayClient,
  { courseName = "English Literature", ...account }: SignUpOptions & { courseName?: string },
): Promise<SignedUpUserWithCourse> {
  const user = await signUpUser(api, account);
  const course = requireStatus(await api("POST", "/api/courses", { token: user.token, body: { name: courseName } }), 201, "POST /api/courses");
  return { ...user, courseId: course.body.data.id };
}

/** A file to send as the `file` part of a multipart upload. */
export interface UploadFile {
  /** Where the file is on disk. */
  path: string;
  /** The file name and content type the client claims (need not match the content). */
  name: string;
  type: string;
}

/**
 * POSTs a multipart form (the text `fields`, then `file`) with a Bearer token, the file streamed from disk.
 * Returns the status and the parsed JSON body (the text if it is not JSON), whatever the status, once checked
 * against the gateway's OpenAPI document as every answer of the JSON client is.
 */
export async function uploadMultipart(
  gatewayUrl: string,
  token: string,
  path: string,
  fields: Record<string, string>,
  file: UploadFile,
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new File([await openAsBlob(file.path)], file.name, { type: file.type }));
  const response = await fetch(`${gatewayUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  const body = parseBody(await response.text());
  await checkAgainstDocument(gatewayUrl, "POST", path, response, body);
  return { status: response.status, body };
}

/** An import job as GET /api/jobs/:id shows it (the fields tests read). */
export interface ImportJobView {
  id: string;
  status: string;
  progress: number;
  errorMessage: string | null;
  note: { id: string } | null;
}

const FINAL_JOB_STATUSES = ["COMPLETED", "FAILED", "CANCELLED"];

/** True once the job has ended, however it ended. */
export const isFinishedJob = (job: ImportJobView) => FINAL_JOB_STATUSES.includes(job.status);

export interface WaitForJobOptions {
  /** What to wait for; by default that the job finished (COMPLETED, FAILED or CANCELLED). */
  until?: (job: ImportJobView) => boolean;
  timeoutMs?: number;
  intervalMs?: number;
  /** Collects every distinct progress value read, in order (to check that progress only rises). */
  seen?: number[];
}

/** Polls GET /api/jobs/:id until `until` holds for the job, and returns the job as it was then. */
export async function waitForJob(
  api: GatewayClient,
  token: string,
  jobId: string,
  { until = isFinishedJob, timeoutMs = 40_000, intervalMs = 100, seen }: WaitForJobOptions = {},
): Promise<ImportJobView> {
  let last: ImportJobView | undefined;
  try {
    return await eventually(
      async () => {
        const path = `/api/jobs/${jobId}`;
        const job = requireStatus(await api("GET", path, { token }), 200, `GET ${path}`).body.data as ImportJobView;
        last = job;
        if (seen && seen[seen.length - 1] !== job.progress) seen.push(job.progress);
        return until(job) ? job : undefined;
      },
      timeoutMs,
      intervalMs,
    );
  } catch (error) {
    // eventually's own message does not say which job, nor where it stood.
    const lastSeen = last ? `${last.status} at ${last.progress} %` : "never read";
    throw new Error(`waiting for import job ${jobId} (last seen: ${lastSeen}): ${(error as Error).message}`, { cause: error });
  }
}

/** Real recorded speech from Debian's pocketsphinx-testdata (16 kHz mono WAV, with reference transcripts). */
export const LIBRIVOX_DIRECTORY = "/usr/share/pocketsphinx/test/data/librivox";

/** One clip of that speech by its id ("0870", "0880", "0890", "0920", "0930"). */
export const librivoxClip = (id: string) => `${LIBRIVOX_DIRECTORY}/sense_and_sensibility_01_austen_64kb-${id}.wav`;

const execFileAsync = promisify(execFile);

/** Runs ffmpeg to make a test input: quiet, never reading stdin, overwriting; throws with its stderr on failure. */
export async function runFfmpeg(args: string[]): Promise<void> {
  await execFileAsync("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args]);
}
