import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { pipeline } from "node:stream/promises";
import { AppError, internalRequestHeaders, type ErrorKind } from "@study/platform";
import type { Request, Response } from "express";
import { z } from "zod";
import { errorEnvelope, route, type RouteSpec } from "../http/api";

export interface FileSettings {
  /** Media's internal HTTP endpoint (uploads and files). */
  MEDIA_UPLOAD_URL?: string;
  INTERNAL_UPLOAD_SECRET?: string;
}

/** Headers of the service's answer that reach the client (its own Date, Connection… stay behind). */
const FORWARDED_HEADERS = [
  "content-type",
  "content-length",
  "content-range",
  "accept-ranges",
  "content-disposition",
  "cache-control",
  "x-content-type-options",
];
/** Answers that carry the file, or refuse the asked range; any other status comes with a JSON error. */
const FILE_STATUSES = new Set([200, 206, 416]);
/** Time for the service to start answering (a database look-up and a storage stat), not for the transfer itself. */
const ANSWER_TIMEOUT_MS = 30_000;
const MAX_ERROR_BYTES = 64 * 1024;

/** Express 5 gives a wildcard's segments as an array (each URL-decoded); the key is them joined again. */
const fileKeyParams = z.object({
  key: z
    .preprocess((segments) => (Array.isArray(segments) ? segments.join("/") : segments), z.string().min(1))
    .meta({ description: "The storage key, slashes included: the path of a note's audioUrl or an attachment's fileUrl after /api/files/" }),
});

const unavailable = (cause?: unknown) => new AppError("unavailable", "SERVICE_UNAVAILABLE", "The file service is not reachable", { cause });

/** A service's internal HTTP endpoint that serves stored files, and the secret the gateway signs with. */
export interface FileEndpoint {
  url: string;
  secret: string;
}

/** Sends the signed request to the service and resolves with its answer's head (the body still streaming). */
function requestFile(
  endpoint: FileEndpoint,
  userId: string,
  method: "GET" | "HEAD",
  path: string,
  range: string | undefined,
): Promise<IncomingMessage> {
  const headers: Record<string, string> = internalRequestHeaders(endpoint.secret, { userId, method, path });
  if (range) headers.range = range;
  const { protocol, hostname, port } = new URL(endpoint.url);
  return new Promise((resolve, reject) => {
    // The path goes as it is (a URL object would resolve `..` segments): the service refuses a malformed key.
    const upstream = (protocol === "https:" ? httpsRequest : httpRequest)({ protocol, hostname, port, path, method, headers });
    upstream.setTimeout(ANSWER_TIMEOUT_MS, () =>
      upstream.destroy(new AppError("timeout", "SERVICE_TIMEOUT", "The file service did not answer in time")),
    );
    upstream.once("response", (answer) => {
      upstream.setTimeout(0);
      resolve(answer);
    });
    upstream.once("error", (error) => reject(error instanceof AppError ? error : unavailable(error)));
    upstream.end();
  });
}

/** The service's JSON error (`{error: {kind, code, message, details}}`) as the AppError it stands for. */
async function errorOf(answer: IncomingMessage): Promise<AppError> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_ERROR_BYTES) break;
    chunks.push(chunk);
  }
  try {
    const { error } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      error: { kind: ErrorKind; code: string; message: string; details?: { field: string; message: string }[] };
    };
    return new AppError(error.kind, error.code, error.message, { details: error.details });
  } catch (cause) {
    return unavailable(cause);
  }
}

/**
 * Forwards a GET or HEAD for a stored file to a service's internal endpoint (`GET /files/<…>` of libs/storage's
 * server) with the signed user id and only the `Range` header, and streams its answer through, never holding it:
 * the file (200, 206), a refused range (416), or the service's error thrown as the AppError it named.
 */
export async function forwardFileRequest(req: Request, res: Response, endpoint: FileEndpoint, userId: string, path: string): Promise<void> {
  const method = req.method === "HEAD" ? "HEAD" : "GET";
  const answer = await requestFile(endpoint, userId, method, path, req.headers.range);
  const status = answer.statusCode ?? 502;
  // A HEAD answer has no body to read the error from: its status and headers go through as they are.
  if (!FILE_STATUSES.has(status) && method === "GET") throw await errorOf(answer);
  const headers: Record<string, string | string[]> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  // Players embed the file (`<audio src>`: a no-cors request); helmet's same-origin resource policy would
  // block a client on a sibling origin of the same site (app.example.com → api.example.com).
  res.writeHead(status, { ...headers, "cross-origin-resource-policy": "same-site" });
  // A client leaving mid-file (a player seeking elsewhere) closes both connections; the service logs storage failures.
  // eslint-disable-next-line no-restricted-syntax -- a client that stops reading is normal, not a failure of this request
  await pipeline(answer, res).catch(() => undefined);
}

/**
 * `GET /api/files/<storage key>`: the files behind the `audioUrl` of notes and the `fileUrl` of attachments
 * (MEDIA_PUBLIC_BASE_URL = `/api/files`). The gateway authenticates the caller and forwards the request with
 * the signed user id to media's internal endpoint, which checks that the key is a file of one of the caller's
 * notes and streams it from storage; the answer is streamed through, never held in memory. Only the `Range`
 * header goes to media (players seek with it); HEAD asks for the headers only.
 */
export function fileRoutes(settings: FileSettings): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/api/files/*key",
      tag: "Files",
      summary: "Download a stored file of one of the caller's notes: its audio (audioUrl) or an attachment (fileUrl)",
      description:
        "Streams the file with its own Content-Type, Content-Length and Content-Disposition (inline for audio, attachment " +
        "with the original file name for attachments). Supports one byte range (`Range: bytes=first-last`, `first-` or `-suffix`): " +
        "206 with Content-Range; a range outside the file is 416 with `Content-Range: bytes */size`. Another user's file, a " +
        "deleted note's file and an unknown key are 404; a malformed key (e.g. `..` segments) is 400 INVALID_STORAGE_KEY.",
      auth: true,
      params: fileKeyParams,
      responses: {
        200: { description: "The whole file, in its own content type", contentType: "application/octet-stream" },
        206: { description: "The requested byte range (Content-Range: bytes first-last/size)", contentType: "application/octet-stream" },
        400: { description: "A malformed key, e.g. with `..` or empty segments (INVALID_STORAGE_KEY)", schema: errorEnvelope },
        404: { description: "No such file of the caller's notes (NOT_FOUND)", schema: errorEnvelope },
        416: { description: "The range holds no byte of the file (Content-Range: bytes */size); no body" },
        503: { description: "The file service is not configured or not reachable (SERVICE_UNAVAILABLE)", schema: errorEnvelope },
      },
      async handler({ userId, req, res, params }) {
        const { MEDIA_UPLOAD_URL, INTERNAL_UPLOAD_SECRET } = settings;
        if (!MEDIA_UPLOAD_URL || !INTERNAL_UPLOAD_SECRET) {
          throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "Files are not available: the media endpoint is not configured");
        }
        const path = `/files/${params.key.split("/").map(encodeURIComponent).join("/")}`;
        await forwardFileRequest(req, res, { url: MEDIA_UPLOAD_URL, secret: INTERNAL_UPLOAD_SECRET }, userId, path);
      },
    }),
  ];
}
