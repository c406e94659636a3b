import { media as api } from "@study/contracts";
import { AppError } from "@study/platform";
import { z } from "zod";
import { currentAuth } from "../identity/adapters/http/session";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { sendData } from "../http/envelope";
import { courseJson, noteSchema, noteJson, statusName } from "./notes";

/** The spec's audio MIME types for audio import, and the names and file extensions that stand for them. */
export const AUDIO_MIME_TYPES: Record<string, { aliases: string[]; extensions: string[] }> = {
  "audio/mpeg": { aliases: ["audio/mp3", "audio/mpeg3", "audio/x-mp3", "audio/x-mpeg", "audio/mpg"], extensions: ["mp3"] },
  "audio/wav": { aliases: ["audio/x-wav", "audio/wave", "audio/vnd.wave"], extensions: ["wav", "wave"] },
  "audio/m4a": { aliases: ["audio/x-m4a", "audio/mp4"], extensions: ["m4a"] },
  "audio/aac": { aliases: ["audio/x-aac", "audio/aacp"], extensions: ["aac"] },
  "audio/ogg": { aliases: ["audio/x-ogg", "application/ogg", "audio/opus", "audio/vorbis"], extensions: ["ogg", "oga", "opus"] },
  "audio/flac": { aliases: ["audio/x-flac"], extensions: ["flac"] },
  "audio/webm": { aliases: ["video/webm"], extensions: ["webm", "weba"] },
  "video/mp4": { aliases: ["application/mp4"], extensions: ["mp4"] },
};

/** The spec's MIME type for a named type or alias (parameters ignored), or null. */
export function supportedMimeType(mimeType: string): string | null {
  const bare = mimeType.split(";")[0].trim().toLowerCase();
  for (const [type, { aliases }] of Object.entries(AUDIO_MIME_TYPES)) if (type === bare || aliases.includes(bare)) return type;
  return null;
}

/** The spec's MIME type for a file name's extension; undefined without an extension, null for an unsupported one. */
export function mimeTypeOfFileName(fileName: string): string | null | undefined {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0 || dot === fileName.length - 1) return undefined;
  const extension = fileName.slice(dot + 1).toLowerCase();
  for (const [type, { extensions }] of Object.entries(AUDIO_MIME_TYPES)) if (extensions.includes(extension)) return type;
  return null;
}

export function unexpectedFile(message: string): AppError {
  return new AppError("validation", "UNEXPECTED_FILE", message, { details: [{ field: "file", message }] });
}

const AUDIO_TITLE_PREFIX = "Audio Import: ";
/** Notes' titles are 1-255 characters. */
const MAX_TITLE_LENGTH = 255;

/**
 * The first `max` characters of `text`, counted in code points so that no emoji is cut in half. Titles made
 * from a video's or a file's name are shortened to fit rather than refusing the import: the user did not
 * choose their length.
 */
export const firstCharacters = (text: string, max: number) => [...text].slice(0, max).join("");
const httpUrl = z
  .string("is required")
  .trim()
  .max(2048, "must be at most 2048 characters")
  .refine((value) => {
    try {
      return ["http:", "https:"].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, "must be a valid http(s) URL");
const speed = z.union([z.literal(1), z.literal(2)], { message: "must be 1 or 2" }).default(2);
const courseId = z.string("is required").trim().min(1, "is required").max(100);
const videoBody = z.strictObject({ url: httpUrl, courseId, speedMultiplier: speed });
const audioBody = z.strictObject({ url: httpUrl, courseId, mimeType: z.string().trim().max(255).optional(), speedMultiplier: speed });

export const importJobCompactSchema = z
  .object({
    id: z.string(),
    status: z.enum(["PENDING", "IN_PROGRESS", "COMPLETED", "FAILED", "CANCELLED"]),
    type: z.enum(["video_import", "audio_import", "audio_upload"]),
    noteId: z.string().nullable(),
  })
  .meta({ id: "ImportJobCompact" });
const videoInfoSchema = z.object({ title: z.string(), duration: z.number(), description: z.string(), uploader: z.string() }).meta({ id: "VideoInfo" });

export function importJobJson(job: api.ImportJob) {
  return {
    id: job.id,
    status: statusName(api.jobStatusToJSON(job.status), "JOB_STATUS"),
    // The spec writes the compact job's type in lower case (video_import, audio_import, audio_upload).
    type: statusName(api.importTypeToJSON(job.type), "IMPORT_TYPE").toLowerCase(),
    noteId: job.noteId ?? null,
  };
}

/** The last path segment of a URL, decoded ("lecture 1.mp3"), or the host when there is none. */
function fileNameOf(url: string): string {
  const parsed = new URL(url);
  const last = parsed.pathname.split("/").filter(Boolean).pop();
  if (!last) return parsed.hostname;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

const notFound = { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope };
const tag = "Notes";

export function importRoutes(clients: ServiceClients, options: { videoInfoDeadlineMs: number }): RouteSpec[] {
  return [
    route({
      method: "post",
      path: "/api/notes/import/video",
      tag,
      summary: "Import a video by URL: its audio is transcribed in the background (see the import job)",
      auth: true,
      body: videoBody,
      responses: {
        201: {
          description: "The note (PENDING), its import job and the video's metadata",
          schema: dataEnvelope(z.object({ note: noteSchema, importJob: importJobCompactSchema, videoInfo: videoInfoSchema })),
        },
        400: {
          description: "Invalid input (VALIDATION_ERROR), an address the service may not download from (URL_NOT_ALLOWED) or an unknown host (HOST_NOT_FOUND)",
          schema: errorEnvelope,
        },
        404: notFound,
      },
      async handler({ body, res }) {
        const userId = currentAuth(res).user.id;
        const { course } = await clients.courses.checkCourseOwnership({ userId, courseId: body.courseId });
        const videoInfo = await clients.media.getVideoInfo({ userId, url: body.url }, { deadlineMs: options.videoInfoDeadlineMs });
        const { note, job } = await clients.media.createImport({
          userId,
          type: api.ImportType.IMPORT_TYPE_VIDEO_IMPORT,
          title: firstCharacters(videoInfo.title, MAX_TITLE_LENGTH),
          courseId: body.courseId,
          sourceUrl: body.url,
          speedMultiplier: body.speedMultiplier,
        });
        sendData(
          res,
          201,
          { note: noteJson(note!, courseJson(course)), importJob: importJobJson(job!), videoInfo },
          "Video import started",
        );
      },
    }),
    route({
      method: "post",
      path: "/api/notes/import/audio",
      tag,
      summary: "Import an audio file by URL (downloaded by the worker; internal addresses are refused)",
      description:
        "The format comes from `mimeType`, else from the URL's file extension; a named format outside the spec's list is " +
        "400 UNEXPECTED_FILE. A URL without an extension is accepted and checked by content when downloaded. Loopback, " +
        "private, link-local and metadata addresses are refused (400 URL_NOT_ALLOWED) unless MEDIA_DOWNLOAD_ALLOWLIST " +
        "names them; a redirect to one is refused by the download (the job FAILS with the reason).",
      auth: true,
      body: audioBody,
      responses: {
        201: { description: "The note (PENDING) and its import job", schema: dataEnvelope(z.object({ note: noteSchema, importJob: importJobCompactSchema })) },
        400: {
          description: "Invalid input (VALIDATION_ERROR), an unsupported format (UNEXPECTED_FILE), an address the service may not download from (URL_NOT_ALLOWED) or an unknown host (HOST_NOT_FOUND)",
          schema: errorEnvelope,
        },
        404: notFound,
      },
      async handler({ body, res }) {
        const userId = currentAuth(res).user.id;
        const fileName = fileNameOf(body.url);
        let mimeType: string | null | undefined;
        if (body.mimeType) {
          mimeType = supportedMimeType(body.mimeType);
          if (!mimeType) throw unexpectedFile(`Unsupported audio format ${body.mimeType}: expected one of ${Object.keys(AUDIO_MIME_TYPES).join(", ")}`);
        } else {
          mimeType = mimeTypeOfFileName(fileName);
          if (mimeType === null) throw unexpectedFile(`Unsupported audio file ${fileName}: expected one of ${Object.keys(AUDIO_MIME_TYPES).join(", ")}`);
        }
        const { course } = await clients.courses.checkCourseOwnership({ userId, courseId: body.courseId });
        const { note, job } = await clients.media.createImport({
          userId,
          type: api.ImportType.IMPORT_TYPE_AUDIO_IMPORT,
          title: firstCharacters(`${AUDIO_TITLE_PREFIX}${fileName}`, MAX_TITLE_LENGTH),
          courseId: body.courseId,
          sourceUrl: body.url,
          speedMultiplier: body.speedMultiplier,
          mimeType: mimeType ?? undefined,
          // Media shortens a longer name to 255 characters, keeping its extension.
          originalFilename: fileName,
        });
        sendData(res, 201, { note: noteJson(note!, courseJson(course)), importJob: importJobJson(job!) }, "Audio import started");
      },
    }),
  ];
}
