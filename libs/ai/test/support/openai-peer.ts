/**
 * A local HTTP server speaking enough of the OpenAI REST API for tests (node:http on 127.0.0.1): it records
 * every request and answers what the test's `respond` callback returns. Point a client at `baseURL`.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface PeerRequest {
  method: string;
  /** Path and query, e.g. "/v1/chat/completions". */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON (chat completions). */
  json(): unknown;
  /** The body parsed as multipart/form-data (audio uploads), by the platform's own parser. */
  formData(): Promise<FormData>;
}

export interface PeerReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent verbatim as text/plain (for malformed answers). */
  text?: string;
  /** Waits this long before answering (timeouts, cancellation). */
  delayMs?: number;
}

export interface OpenAiPeer {
  /** e.g. http://127.0.0.1:40123/v1 */
  baseURL: string;
  requests: PeerRequest[];
  close(): Promise<void>;
}

/** The body OpenAI sends with an error status. */
export function openAiErrorBody(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

export async function startOpenAiPeer(respond: (request: PeerRequest, index: number) => PeerReply | Promise<PeerReply>): Promise<OpenAiPeer> {
  const requests: PeerRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", async () => {
      const body = Buffer.concat(chunks);
      const headers = incoming.headers;
      const request: PeerRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers,
        body,
        json: () => JSON.parse(body.toString("utf8")),
        formData: () =>
          new Request("http://peer.invalid/", { method: "POST", headers: { "content-type": String(headers["content-type"]) }, body }).formData(),
      };
      requests.push(request);
      try {
        const reply = await respond(request, requests.length - 1);
        if (reply.delayMs) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              resolve();
            }, reply.delayMs);
            timers.add(timer);
          });
        }
        if (outgoing.destroyed) return;
        const isJson = reply.text === undefined;
        outgoing.writeHead(reply.status ?? 200, {
          "content-type": isJson ? "application/json" : "text/plain",
          ...reply.headers,
        });
        outgoing.end(isJson ? JSON.stringify(reply.json ?? {}) : reply.text);
      } catch (error) {
        outgoing.writeHead(500, { "content-type": "application/json" });
        outgoing.end(JSON.stringify(openAiErrorBody(`peer failed: ${String(error)}`, "server_error")));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
