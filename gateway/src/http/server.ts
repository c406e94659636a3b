import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { ErrorBody } from "./envelope";

/** Node's own answers to requests it cannot parse, in the spec's envelope instead of an empty body. */
function clientErrorAnswer(code: string | undefined): { status: number; reason: string; body: ErrorBody } {
  if (code === "HPE_HEADER_OVERFLOW") {
    return {
      status: 431,
      reason: "Request Header Fields Too Large",
      body: { success: false, error: "The URL or the headers are too large", code: "HEADERS_TOO_LARGE" },
    };
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return {
      status: 408,
      reason: "Request Timeout",
      body: { success: false, error: "The request took too long to arrive", code: "REQUEST_TIMEOUT" },
    };
  }
  return { status: 400, reason: "Bad Request", body: { success: false, error: "Malformed HTTP request", code: "MALFORMED_REQUEST" } };
}

/**
 * Answers requests that Node's HTTP parser refuses (URL or headers over `maxHeaderSize`, malformed request
 * lines) with the error envelope; without this listener Node writes the status line and an empty body.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the client already closed, or one with an answer under way, has nothing to receive.
    if (error.code === "ECONNRESET" || !socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const { status, reason, body } = clientErrorAnswer(error.code);
    const payload = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(payload)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        "Connection: close\r\n\r\n" +
        payload,
    );
  });
}

/** The route template Express matched for a request ("/api/courses/:id"), which it keeps on the request. */
export function matchedRoute(request: IncomingMessage): string | undefined {
  const route: unknown = (request as IncomingMessage & { route?: unknown }).route;
  const path = typeof route === "object" && route !== null ? (route as { path?: unknown }).path : undefined;
  return typeof path === "string" ? path : undefined;
}
