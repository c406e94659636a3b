import { media as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { sendData } from "../http/envelope";
import { courseJson, coursesById, restEnum } from "./shared/mappers";
import { jobStatus, noteJson, noteSchema } from "./shared/media-json";

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
// Media owns the rule (1 or 2, default 2); the gateway checks the type only.
const speed = z.number("must be 1 or 2").optional().describe("1 (standard) or 2 (faster, cheaper); 2 when omitted");
const courseId = z.string("is required").trim().min(1, "is required").max(100);
const videoBody = z.strictObject({ url: httpUrl, courseId, speedMultiplier: speed });
const audioBody = z.strictObject({ url: httpUrl, courseId, mimeType: z.string().trim().max(255).optional(), speedMultiplier: speed });

// The spec writes the compact job's type in lower case (video_import, audio_import, audio_upload).
const importType = restEnum(api.ImportType, "IMPORT_TYPE", "lower");

export const importJobCompactSchema = z
  .object({
    id: z.string(),
    status: z.enum(jobStatus.names),
    type: z.enum(importType.names),
    noteId: z.string().nullable(),
  })
  .meta({ id: "ImportJobCompact" });
const videoInfoSchema = z
  .object({ title: z.string(), duration: z.number(), description: z.string(), uploader: z.string() })
  .meta({ id: "VideoInfo" });

export function importJobJson(job: api.ImportJob) {
  return {
    id: job.id,
    status: jobStatus.toRest(job.status),
    type: importType.toRest(job.type),
    noteId: job.noteId ?? null,
  };
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
          description:
            "Invalid input (VALIDATION_ERROR), or a host the service may not download from, unknown or not public (URL_NOT_ALLOWED: one answer for both)",
          schema: errorEnvelope,
        },
        404: notFound,
      },
      async handler({ userId, body, res }) {
        // Media checks the course, reads the video's metadata (yt-dlp: hence the longer deadline) and makes the title.
        const created = await clients.media.createImport(
          {
            userId,
            type: api.ImportType.IMPORT_TYPE_VIDEO_IMPORT,
            courseId: body.courseId,
            sourceUrl: body.url,
            speedMultiplier: body.speedMultiplier,
          },
          { deadlineMs: options.videoInfoDeadlineMs },
        );
        const note = required(created.note, "note in CreateImport reply");
        const job = required(created.job, "job in CreateImport reply");
        const videoInfo = required(created.videoInfo, "videoInfo in CreateImport reply");
        const courses = await coursesById(clients, userId, [note.courseId]);
        const course = courseJson(courses.get(note.courseId));
        sendData(res, 201, { note: noteJson(note, course), importJob: importJobJson(job), videoInfo }, "Video import started");
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
        "private, link-local and metadata addresses, and hosts that do not resolve, are refused alike (400 URL_NOT_ALLOWED, one " +
        "generic message naming no address) unless MEDIA_DOWNLOAD_ALLOWLIST names them; a redirect to one is refused by the " +
        "download (the job FAILS with the same message).",
      auth: true,
      body: audioBody,
      responses: {
        201: {
          description: "The note (PENDING) and its import job",
          schema: dataEnvelope(z.object({ note: noteSchema, importJob: importJobCompactSchema })),
        },
        400: {
          description:
            "Invalid input (VALIDATION_ERROR), an unsupported format (UNEXPECTED_FILE), or a host the service may not download from, unknown or not public (URL_NOT_ALLOWED: one answer for both)",
          schema: errorEnvelope,
        },
        404: notFound,
      },
      async handler({ userId, body, res }) {
        // Media applies the import rules: format, course, title "Audio Import: <file name>", download policy.
        const created = await clients.media.createImport({
          userId,
          type: api.ImportType.IMPORT_TYPE_AUDIO_IMPORT,
          courseId: body.courseId,
          sourceUrl: body.url,
          speedMultiplier: body.speedMultiplier,
          mimeType: body.mimeType || undefined,
        });
        const note = required(created.note, "note in CreateImport reply");
        const job = required(created.job, "job in CreateImport reply");
        const courses = await coursesById(clients, userId, [note.courseId]);
        sendData(res, 201, { note: noteJson(note, courseJson(courses.get(note.courseId))), importJob: importJobJson(job) }, "Audio import started");
      },
    }),
  ];
}
