import { Agent, type ClientRequest, type IncomingMessage } from "node:http";
import { AppError, drainAfterEarlyAnswer, internalRequestHeaders, type ErrorKind } from "@study/platform";
import type { Request, Response } from "express";
import { createProxyMiddleware } from "http-proxy-middleware";

export interface UploadForwarderOptions {
  /** The service's internal HTTP endpoint (MEDIA_UPLOAD_URL, DOCUMENTS_UPLOAD_URL); uploads answer 503 without it. */
  targetUrl?: string;
  /** INTERNAL_UPLOAD_SECRET, shared with the service: signs the user id forwarded with the upload. */
  secret?: string;
  /** The spec's upload connection timeout: the client sends nothing for this long (CONNECTION_TIMEOUT). */
  idleTimeoutMs: number;
  /** The spec's upload request timeout: the whole upload, the service's answer included (CONNECTION_TIMEOUT). */
  requestTimeoutMs: number;
  /** Largest answer read from the endpoint (JSON records, never the file); 1 MB when unset. */
  maxAnswerBytes?: number;
}

/** The service's answer: its JSON body (an upload endpoint's own shape, or `{error}` on a refusal). */
export interface ForwardedUpload {
  status: number;
  body: { error?: { kind: ErrorKind; code: string; message: string; details?: { field: string; message: string }[] } } & Record<string, unknown>;
}

/**
 * Streams the request (a multipart upload) to `path` on the service as the user `userId` (the route's caller) and
 * resolves with its answer; a refusal of the service is thrown as the AppError it named, so the error handler
 * answers it in the envelope.
 */
export type UploadForwarder = (req: Request, res: Response, path: string, userId: string) => Promise<ForwardedUpload>;

interface Pending {
  path: string;
  userId: string;
  /** The request to the service, once made (stopped when the upload times out). */
  upstream?: ClientRequest;
  resolve(answer: ForwardedUpload): void;
  reject(error: unknown): void;
}

/** The 504 of every upload route. */
export const UPLOAD_TIMEOUT_DESCRIPTION =
  "The client sent nothing for UPLOAD_IDLE_TIMEOUT_MS, or the upload took over UPLOAD_REQUEST_TIMEOUT_MS (CONNECTION_TIMEOUT); nothing is kept";

const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/** Headers of the client that never reach the service: its credentials, and internal headers it may have forged. */
const STRIPPED_HEADERS = ["authorization", "cookie", "x-study-user-id", "x-study-timestamp", "x-study-signature"];

const minutes = (ms: number) => (ms >= 60_000 ? `${+(ms / 60_000).toFixed(1)} minutes` : `${+(ms / 1000).toFixed(1)} seconds`);

/**
 * Forwards uploads as a stream with http-proxy-middleware to a service's internal upload endpoint (media's,
 * documents'), which stores the file and creates the records: the gateway never holds the file. The gateway
 * signs the user id it forwards (HMAC with the shared secret) and enforces the spec's upload timeouts.
 */
export function createUploadForwarder(options: UploadForwarderOptions): UploadForwarder {
  const pending = new WeakMap<IncomingMessage, Pending>();
  const { targetUrl, secret } = options;
  const maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const proxy =
    targetUrl && secret
      ? createProxyMiddleware<Request, Response>({
          target: targetUrl,
          changeOrigin: true,
          // Without an agent http-proxy asks the service to close after answering, and the service would then close
          // under a body still being sent, resetting the connection before its early answer (413) is read here.
          agent: new Agent({ keepAlive: true }),
          selfHandleResponse: true,
          // A backstop: `forward` ends a slow upload first, with CONNECTION_TIMEOUT.
          proxyTimeout: options.requestTimeoutMs + 5_000,
          pathRewrite: (_path, req) => pending.get(req)?.path ?? "/unknown",
          on: {
            proxyReq(proxyReq: ClientRequest, req) {
              const waiting = pending.get(req);
              // Only what `forward` registered goes on, signed as its route's caller; nothing else is sent unsigned.
              if (!waiting) return void proxyReq.destroy();
              waiting.upstream = proxyReq;
              for (const header of STRIPPED_HEADERS) proxyReq.removeHeader(header);
              const { userId } = waiting;
              const headers = internalRequestHeaders(secret, { userId, method: proxyReq.method, path: proxyReq.path });
              for (const [name, value] of Object.entries(headers)) proxyReq.setHeader(name, value);
            },
            proxyRes(proxyRes, req) {
              const waiting = pending.get(req);
              if (!waiting) return proxyRes.resume();
              const chunks: Buffer[] = [];
              let length = 0;
              proxyRes.on("data", (chunk: Buffer) => {
                length += chunk.length;
                if (length <= maxAnswerBytes) chunks.push(chunk);
              });
              proxyRes.on("end", () => {
                // Answered before the whole body was sent (refused): stop sending to the service.
                const { upstream } = waiting;
                if (upstream && !upstream.writableFinished) upstream.destroy();
                if (length > maxAnswerBytes) {
                  waiting.reject(AppError.internal(`The upload endpoint answered ${length} bytes, over the ${maxAnswerBytes} read`));
                  return;
                }
                try {
                  // The upload endpoints answer JSON: their records, or {error} in the form of libs/storage's upload server.
                  const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ForwardedUpload["body"];
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
              // Anything else (refused, unknown host) is the service being away, not the client: say so before the
              // client's request closes under the failed forwarding and reads as interrupted.
              else waiting.reject(new AppError("unavailable", "SERVICE_UNAVAILABLE", "The upload service is not reachable", { cause: error }));
            },
          },
        })
      : null;

  return async function forward(req, res, path, userId) {
    if (!proxy) throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "Uploads are not available: the upload endpoint is not configured");
    const answer = await new Promise<ForwardedUpload>((resolve, reject) => {
      const waiting: Pending = { path, userId, resolve, reject };
      pending.set(req, waiting);
      // A client that sent `Expect: 100-continue` (curl, for any body over 1 MB) was already told to send the body:
      // Node's server answers 100 Continue itself before the route runs. The hop to the service must not ask again:
      // http-proxy skips its `proxyReq` event for a request with an Expect header, so the signed user id would never
      // be added (the service answered 401) and the client's credentials would go through.
      delete req.headers.expect;
      // The spec's upload timeouts: the client goes quiet for too long while sending, or the whole upload takes
      // too long. The service sees its request stop, as for a client that went away, and keeps nothing.
      const timedOut = (message: string) => () => {
        waiting.upstream?.destroy();
        reject(new AppError("timeout", "CONNECTION_TIMEOUT", message));
      };
      const idleMinutes = minutes(options.idleTimeoutMs);
      req.setTimeout(options.idleTimeoutMs, timedOut(`The upload stalled: nothing was received for ${idleMinutes}`));
      // Only while the client sends: once the body is in, the wait is for the service, bounded by the overall limit.
      req.once("end", () => req.setTimeout(0));
      const overall = setTimeout(timedOut(`The upload took longer than ${minutes(options.requestTimeoutMs)}`), options.requestTimeoutMs);
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
  };
}
