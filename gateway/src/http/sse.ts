import type { ClientReadableStream, ServiceError } from "@grpc/grpc-js";
import { fromServiceError } from "@study/grpc";
import type { Response } from "express";

/** A comment line after this much silence keeps proxies from closing an idle event stream. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * Reads a gRPC server stream one message at a time; a failed call rejects with the AppError the callee raised
 * (as the unary clients do), so that a route can let it become the usual error answer.
 */
export function serverStreamReader<T>(call: ClientReadableStream<T>, callee: string): () => Promise<IteratorResult<T>> {
  const messages: AsyncIterator<T> = call[Symbol.asyncIterator]();
  return async () => {
    try {
      return await messages.next();
    } catch (error) {
      throw fromServiceError(error as ServiceError, callee);
    }
  };
}

/** An open `text/event-stream` answer. */
export interface EventStream {
  /** Writes one event: `event: <name>` with its data as JSON. */
  send(event: string, data: unknown): void;
  /** The client went away: nothing more reaches it. */
  readonly closed: boolean;
  /** Stops the keep-alive and ends the answer. */
  end(): void;
}

/**
 * Starts a server-sent events answer (200, headers flushed at once, no buffering by proxies) with a keep-alive
 * comment after `keepAliveMs` of silence. `onClose` runs when the connection closes, the client's leaving
 * included: the place to cancel the call that feeds the stream (unless the route listens for that itself).
 */
export function openEventStream(res: Response, onClose?: () => void, keepAliveMs = KEEP_ALIVE_MS): EventStream {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  if (onClose) res.on("close", onClose);
  let lastWrite = Date.now();
  const keepAlive = setInterval(() => {
    if (Date.now() - lastWrite < keepAliveMs) return;
    res.write(": keep-alive\n\n");
    lastWrite = Date.now();
  }, keepAliveMs / 3);
  return {
    send(event, data) {
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      lastWrite = Date.now();
    },
    get closed() {
      return res.destroyed;
    },
    end() {
      clearInterval(keepAlive);
      res.end();
    },
  };
}
