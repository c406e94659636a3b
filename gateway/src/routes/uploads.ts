import { Agent, type ClientRequest, type IncomingMessage } from "node:http";
import { media as api } from "@study/contracts";
import { AppError, drainAfterEarlyAnswer, internalRequestHeaders, type ErrorKind } from "@study/platform";
import type { Request, Response } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { z } from "zod";
import { currentAuth } from "../identity/adapters/http/session";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { idParams } from "../http/params";
import { sendData } from "../http/envelope";
import { importJobCompactSchema, importJobJson } from "./imports";
import { courseJson, coursesById, noteJson, noteSchema } from "./notes";

export interface UploadSettings {
  MEDIA_UPLOAD_URL?: string;
  INTERNAL_UPLOAD_SECRET?: string;
  UPLOAD_IDLE_TIMEOUT_MS: number;
  UPLOAD_REQUEST_TIMEOUT_MS: number;
}

const minutes = (ms: number) => (ms >= 60_000 ? `${+(ms / 60_000).toFixed(1)} minutes` : `${+(ms / 1000).toFixed(1)} seconds`);

/** Largest answer read from the upload endpoint (JSON records, never the file). */
const MAX_ANSWER_BYTES = 1024 * 1024;

interface Forwarded {
  status: number;
  body: { error?: { kind: ErrorKind; code: string; message: string; details?: { field: string; message: string }[] } } & Record<string, unknown>;
}

interface Pending {
  path: string;
  /** The request to media, once made (stopped when the upload times out). */
  upstream?: ClientRequest;
  resolve(answer: Forwarded): void;
  reject(error: unknown): void;
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
 * forwarded as a stream with http-proxy-middleware to the media service's upload endpoint, which stores the
 * file and creates the records. The gateway signs the user id it forwards (HMAC with INTERNAL_UPLOAD_SECRET)
 * and shapes the answer like every other note answer.
 */
export function uploadRoutes(clients: ServiceClients, settings: UploadSettings): RouteSpec[] {
  const pending = new WeakMap<IncomingMessage, Pending>();
  const { MEDIA_UPLOAD_URL, INTERNAL_UPLOAD_SECRET } = settings;
  const proxy =
    MEDIA_UPLOAD_URL && INTERNAL_UPLOAD_SECRET
      ? createProxyMiddleware<Request, Response>({
          target: MEDIA_UPLOAD_URL,
          changeOrigin: true,
          // Without an agent http-proxy asks media to close after answering, and media would then close under a
          // body still being sent, resetting the connection before its early answer (413) is read here.
          agent: new Agent({ keepAlive: true }),
          selfHandleResponse: true,
          // A backstop: `forward` ends a slow upload first, with CONNECTION_TIMEOUT.
          proxyTimeout: settings.UPLOAD_REQUEST_TIMEOUT_MS + 5_000,
          pathRewrite: (_path, req) => pending.get(req)?.path ?? "/unknown",
          on: {
            proxyReq(proxyReq: ClientRequest, req, res) {
              const waiting = pending.get(req);
              if (waiting) waiting.upstream = proxyReq;
              for (const header of ["authorization", "cookie", "x-study-user-id", "x-study-timestamp", "x-study-signature"])
                proxyReq.removeHeader(header);
              const userId = currentAuth(res).user.id;
              const headers = internalRequestHeaders(INTERNAL_UPLOAD_SECRET, { userId, method: proxyReq.method, path: proxyReq.path });
              for (const [name, value] of Object.entries(headers)) proxyReq.setHeader(name, value);
            },
            proxyRes(proxyRes, req) {
              const waiting = pending.get(req);
              if (!waiting) return proxyRes.resume();
              const chunks: Buffer[] = [];
              let length = 0;
              proxyRes.on("data", (chunk: Buffer) => {
                length += chunk.length;
                if (length <= MAX_ANSWER_BYTES) chunks.push(chunk);
              });
              proxyRes.on("end", () => {
                // Answered before the whole body was sent (refused): stop sending to media.
                const { upstream } = waiting;
                if (upstream && !upstream.writableFinished) upstream.destroy();
                try {
                  // Media's upload endpoint answers in the API's envelope.
                  const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Forwarded["body"];
                  waiting.resolve({ status: proxyRes.statusCode ?? 502, body });
                } catch (error) {
                  waiting.reject(error);
                }
              });
              proxyRes.on("error", (error) => waiting.reject(error));
            },
            error(error, req) {
              // The service may answer early (413) and close while the body is still being sent: the write then
              // fails, but the answer may still be on its way. Give it a moment before reporting the failure.
              const waiting = pending.get(req as IncomingMessage);
              if (!waiting) return;
              const code = (error as NodeJS.ErrnoException).code;
              if (code === "EPIPE" || code === "ECONNRESET") setTimeout(() => waiting.reject(error), 1_000).unref();
              else waiting.reject(error);
            },
          },
        })
      : null;

  async function forward(req: Request, res: Response, path: string): Promise<Forwarded> {
    if (!proxy) throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "Uploads are not available: the upload endpoint is not configured");
    const answer = await new Promise<Forwarded>((resolve, reject) => {
      const waiting: Pending = { path, resolve, reject };
      pending.set(req, waiting);
      // The spec's upload timeouts: the client goes quiet for too long while sending, or the whole upload takes
      // too long. Media sees its request stop, as for a client that went away, and keeps nothing.
      const timedOut = (message: string) => () => {
        waiting.upstream?.destroy();
        reject(new AppError("timeout", "CONNECTION_TIMEOUT", message));
      };
      const idleMinutes = minutes(settings.UPLOAD_IDLE_TIMEOUT_MS);
      req.setTimeout(settings.UPLOAD_IDLE_TIMEOUT_MS, timedOut(`The upload stalled: nothing was received for ${idleMinutes}`));
      // Only while the client sends: once the body is in, the wait is for media, bounded by the overall limit.
      req.once("end", () => req.setTimeout(0));
      const overall = setTimeout(
        timedOut(`The upload took longer than ${minutes(settings.UPLOAD_REQUEST_TIMEOUT_MS)}`),
        settings.UPLOAD_REQUEST_TIMEOUT_MS,
      );
      res.once("close", () => clearTimeout(overall));
      // http-proxy reports nothing when the client itself goes away: settle here, so no request waits forever.
      req.once("close", () => {
        if (!req.complete) reject(new AppError("validation", "UPLOAD_INTERRUPTED", "The upload was interrupted"));
      });
      void proxy(req, res, (error?: unknown) => reject(error instanceof Error ? error : new Error("the upload was not forwarded", { cause: error })));
    }).catch((error: unknown) => {
      if (error instanceof AppError && error.code === "CONNECTION_TIMEOUT") drainAfterEarlyAnswer(req, res);
      if (error instanceof AppError) throw error;
      if (req.destroyed || req.readableAborted) throw new AppError("validation", "UPLOAD_INTERRUPTED", "The upload was interrupted");
      throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "The upload service is not reachable", { cause: error });
    });
    if (answer.body.error) {
      // The client may still be sending the refused body (an early 413): read and discard the rest.
      drainAfterEarlyAnswer(req, res);
      const { kind, code, message, details } = answer.body.error;
      throw new AppError(kind, code, message, { details });
    }
    return answer;
  }

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
          schema: dataEnvelope(z.object({ note: noteSchema, importJob: importJobCompactSchema, uploadInfo: uploadInfoSchema })),
        },
        400: { description: "Not a supported audio file (UNEXPECTED_FILE) or invalid fields (VALIDATION_ERROR)", schema: errorEnvelope },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
        413: { description: "The file is over the limit (FILE_TOO_LARGE); nothing is kept", schema: errorEnvelope },
        504: {
          description:
            "The client sent nothing for UPLOAD_IDLE_TIMEOUT_MS, or the upload took over UPLOAD_REQUEST_TIMEOUT_MS (CONNECTION_TIMEOUT); nothing is kept",
          schema: errorEnvelope,
        },
      },
      async handler({ req, res }) {
        const { body } = await forward(req, res, "/uploads/audio");
        const note = api.Note.fromJSON(body.note);
        const job = api.ImportJob.fromJSON(body.job);
        const courses = await coursesById(clients, note.userId, [note.courseId]);
        sendData(
          res,
          201,
          { note: noteJson(note, courseJson(courses.get(note.courseId))), importJob: importJobJson(job), uploadInfo: body.uploadInfo },
          "Audio uploaded; import started",
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
        504: {
          description:
            "The client sent nothing for UPLOAD_IDLE_TIMEOUT_MS, or the upload took over UPLOAD_REQUEST_TIMEOUT_MS (CONNECTION_TIMEOUT); nothing is kept",
          schema: errorEnvelope,
        },
      },
      async handler({ req, res, params }) {
        const { body } = await forward(req, res, `/uploads/notes/${encodeURIComponent(params.id)}/attachments`);
        sendData(res, 201, body.attachment, "Attachment uploaded");
      },
    }),
  ];
}
