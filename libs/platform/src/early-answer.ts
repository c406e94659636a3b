import type { IncomingMessage, ServerResponse } from "node:http";

/** How long the rest of a refused body is read (and discarded) before the connection is cut. */
export const EARLY_ANSWER_LINGER_MS = 10_000;

/**
 * Prepares an answer sent before the request body has been read to its end (an early 413 or 400 on an upload).
 *
 * Node closes the connection right after such an answer when the client asked for `Connection: close`, and
 * closing a socket that still has unread data makes the kernel reset the connection, which can destroy the
 * answer before the client has read it. So the answer keeps the connection open, the rest of the body is read
 * and thrown away (nothing kept in memory), and the connection is ended once the body has ended, or cut after
 * `lingerMs` for a sender that does not stop. Call it before the answer's headers are written.
 */
export function drainAfterEarlyAnswer(request: IncomingMessage, response: ServerResponse, lingerMs = EARLY_ANSWER_LINGER_MS): void {
  if (request.complete) return;
  const clientAskedToClose = /(^|,)\s*close\s*(,|$)/i.test(request.headers.connection ?? "");
  if (!response.headersSent) response.setHeader("connection", "keep-alive");
  request.unpipe();
  request.resume();
  const socket = request.socket;
  const cut = setTimeout(() => socket.destroy(), lingerMs);
  cut.unref();
  request.once("close", () => clearTimeout(cut));
  request.once("end", () => {
    clearTimeout(cut);
    if (!clientAskedToClose) return;
    // Everything was read: ending now is a clean close, after the answer has been written.
    if (response.writableFinished) socket.end();
    else response.once("finish", () => socket.end());
  });
}
