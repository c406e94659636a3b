import { media as api } from "@study/contracts";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { idParams } from "../http/params";
import { sendData } from "../http/envelope";
import { createUploadForwarder, UPLOAD_TIMEOUT_DESCRIPTION } from "../http/upload-forwarder";
import { importJobCompactSchema, importJobJson } from "./imports";
import { courseJson, coursesById } from "./shared/mappers";
import { noteJson, noteSchema } from "./shared/media-json";

export interface UploadSettings {
  MEDIA_UPLOAD_URL?: string;
  INTERNAL_UPLOAD_SECRET?: string;
  UPLOAD_IDLE_TIMEOUT_MS: number;
  UPLOAD_REQUEST_TIMEOUT_MS: number;
}

const uploadInfoSchema = z
  .object({ filename: z.string(), size: z.number().int(), mimeType: z.string(), s3Key: z.string() })
  .meta({ id: "UploadInfo" });
const attachmentResultSchema = z
  .object({
    fileUrl: z.string(),
    fileName: z.string(),
    fileSize: z.number().int(),
    mimeType: z.string(),
    timestamp: z.number(),
    description: z.string().nullable(),
    uploadedAt: z.iso.datetime(),
  })
  .meta({ id: "AttachmentUploadResult" });
const multipartNote = "multipart/form-data, streamed to the media service (never held in memory by the gateway); the format is checked by content.";

/**
 * The upload routes: declared here (so they are documented and authenticated like every route), and
 * forwarded as a stream to the media service's upload endpoint (`createUploadForwarder`), which stores the
 * file and creates the records; the answer is shaped like every other note answer.
 */
export function uploadRoutes(clients: ServiceClients, settings: UploadSettings): RouteSpec[] {
  const forward = createUploadForwarder({
    targetUrl: settings.MEDIA_UPLOAD_URL,
    secret: settings.INTERNAL_UPLOAD_SECRET,
    idleTimeoutMs: settings.UPLOAD_IDLE_TIMEOUT_MS,
    requestTimeoutMs: settings.UPLOAD_REQUEST_TIMEOUT_MS,
  });

  const tag = "Notes";
  return [
    route({
      method: "post",
      path: "/api/notes/upload/audio",
      tag,
      accepts: "multipart/form-data",
      summary: "Upload an audio file (multipart: file, courseId, title?, speedMultiplier?) and start its import",
      description: `${multipartNote} MP3, WAV, M4A, AAC, OGG, FLAC, WEBM or MP4, at most 150 MB (MEDIA_MAX_UPLOAD_BYTES).`,
      auth: true,
      responses: {
        201: {
          description: "The note (PENDING), its import job and what was stored",
          schema: dataEnvelope(
            z.object({
              note: noteSchema,
              importJob: importJobCompactSchema,
              uploadInfo: uploadInfoSchema,
              duplicateOf: z
                .string()
                .nullable()
                .describe(
                  "The caller's earlier note uploaded with the same file (same SHA-256), or null. The upload is kept either way: " +
                    "uploading a recording twice may be meant",
                ),
            }),
          ),
        },
        400: { description: "Not a supported audio file (UNEXPECTED_FILE) or invalid fields (VALIDATION_ERROR)", schema: errorEnvelope },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
        413: { description: "The file is over the limit (FILE_TOO_LARGE); nothing is kept", schema: errorEnvelope },
        504: { description: UPLOAD_TIMEOUT_DESCRIPTION, schema: errorEnvelope },
      },
      async handler({ userId, req, res }) {
        const { body } = await forward(req, res, "/uploads/audio", userId);
        const note = api.Note.fromJSON(body.note);
        const job = api.ImportJob.fromJSON(body.job);
        const courses = await coursesById(clients, note.userId, [note.courseId]);
        const duplicateOf = typeof body.duplicateOf === "string" ? body.duplicateOf : null;
        sendData(
          res,
          201,
          { note: noteJson(note, courseJson(courses.get(note.courseId))), importJob: importJobJson(job), uploadInfo: body.uploadInfo, duplicateOf },
          duplicateOf ? `Audio uploaded; import started. The same file was uploaded before as note ${duplicateOf}` : "Audio uploaded; import started",
        );
      },
    }),
    route({
      method: "post",
      path: "/api/notes/:id/attachments",
      tag,
      accepts: "multipart/form-data",
      summary: "Attach a file to a note at a point of its audio (multipart: file, timestamp, description?)",
      description:
        `${multipartNote} Images PNG, JPG, JPEG, GIF, WebP (10 MB); documents PDF, DOC, DOCX, TXT (25 MB); ` +
        "presentations PPT, PPTX (25 MB); spreadsheets XLS, XLSX, CSV (10 MB). Put the returned fileUrl in a user note with contentType file.",
      auth: true,
      params: idParams,
      responses: {
        201: { description: "The attachment upload result", schema: dataEnvelope(attachmentResultSchema) },
        400: { description: "Unsupported type (UNEXPECTED_FILE), missing or invalid timestamp (VALIDATION_ERROR)", schema: errorEnvelope },
        404: { description: "No such note of the caller (NOT_FOUND)", schema: errorEnvelope },
        413: { description: "The file is over its category's limit (FILE_TOO_LARGE)", schema: errorEnvelope },
        504: { description: UPLOAD_TIMEOUT_DESCRIPTION, schema: errorEnvelope },
      },
      async handler({ userId, req, res, params }) {
        const { body } = await forward(req, res, `/uploads/notes/${encodeURIComponent(params.id)}/attachments`, userId);
        sendData(res, 201, body.attachment, "Attachment uploaded");
      },
    }),
  ];
}
