import http, { type IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { AppError } from "@study/platform/errors";
import type { OutboundTarget, OutboundUrlPolicy } from "../download/outbound-url-policy";

/** Headers that belong to one connection, not to the request or response being forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEndHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    (headers.connection ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) kept[name] = value;
  }
  return kept;
}

/** A status line's reason phrase: one line of printable text. */
const reasonPhrase = (text: string) => text.replace(/[^\x20-\x7e]+/g, " ").slice(0, 200);

/**
 * A forward HTTP proxy on loopback through which a tool that fetches URLs by itself (yt-dlp) is made to go, so
 * that every one of its requests passes the OutboundUrlPolicy, redirects included: plain-HTTP requests in
 * absolute form (`GET http://host/path`) and `CONNECT host:port` tunnels for HTTPS. For each, the host is
 * resolved and checked by the policy, and the proxy connects to the very address the policy checked (an IP
 * address, so no second DNS lookup); a refused destination gets `403` with the policy's message as reason and
 * nothing is sent to it.
 * The refusals are kept in `refusals` (the policy's own URL_NOT_ALLOWED errors, with its generic message), so the
 * caller can report why the tool failed. Bodies stream through in both directions; nothing is buffered.
 *
 * It never follows redirects itself (the client sends the next request, which is checked again), opens a
 * fresh upstream connection per request, and refuses requests to itself. `close()` ends every connection.
 */
export class OutboundPolicyProxy {
  /** Policy refusals, in order: why a request the client made was answered 403. */
  readonly refusals: AppError[] = [];
  private readonly connections = new Set<Duplex>();
  private closed = false;
  private listeningPort = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly policy: OutboundUrlPolicy,
  ) {}

  /** Starts a proxy on an ephemeral port of 127.0.0.1. */
  static async start(policy: OutboundUrlPolicy): Promise<OutboundPolicyProxy> {
    const server = http.createServer();
    const proxy = new OutboundPolicyProxy(server, policy);
    server.on("connection", (socket: Socket) => proxy.track(socket));
    server.on("request", (request: IncomingMessage, response: ServerResponse) => void proxy.forward(request, response));
    server.on("connect", (request: IncomingMessage, socket: Duplex, head: Buffer) => void proxy.tunnel(request, socket, head));
    server.on("clientError", (_error, socket: Duplex) => {
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    proxy.listeningPort = (server.address() as AddressInfo).port;
    return proxy;
  }

  /** The port it listens on (on 127.0.0.1), kept after `close()`. */
  get port(): number {
    return this.listeningPort;
  }

  /** The value for the client's proxy setting: `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops listening and destroys every open connection, client and upstream side. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.connections) connection.destroy();
    this.connections.clear();
    await stopped;
  }

  private track<T extends Duplex>(stream: T): T {
    if (this.closed) {
      stream.destroy();
      return stream;
    }
    this.connections.add(stream);
    stream.once("close", () => this.connections.delete(stream));
    return stream;
  }

  /** The policy's target for `url`, or the refusal (recorded) as an HTTP status and reason. */
  private async checked(url: string): Promise<{ target: OutboundTarget } | { status: number; reason: string }> {
    let target: OutboundTarget;
    try {
      target = await this.policy.check(url);
    } catch (error) {
      if (!(error instanceof AppError)) return { status: 502, reason: "Bad Gateway" };
      this.refusals.push(error);
      return { status: error.code === "URL_NOT_ALLOWED" ? 403 : 502, reason: reasonPhrase(error.message) };
    }
    if (target.port === this.listeningPort && (target.address === "127.0.0.1" || target.address === "0.0.0.0")) {
      return { status: 403, reason: "Requests to the proxy itself are not forwarded" };
    }
    return { target };
  }

  /** A plain-HTTP request in absolute form: checked, then sent to the checked address as it came. */
  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? "");
    } catch {
      url = new URL("invalid:");
    }
    if (url.protocol !== "http:") {
      request.resume();
      response.writeHead(400, "Only absolute http:// requests and CONNECT are proxied", { connection: "close" }).end();
      return;
    }
    const outcome = await this.checked(url.href);
    if ("status" in outcome) {
      request.resume();
      response.writeHead(outcome.status, outcome.reason, { connection: "close", "content-length": 0 }).end();
      return;
    }
    if (this.closed) return;
    const { target } = outcome;
    const headers = endToEndHeaders(request.headers);
    headers.host ??= url.host;
    const upstream = http.request({
      host: target.address,
      family: target.family,
      port: target.port,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      agent: false,
    });
    upstream.on("socket", (socket) => this.track(socket));
    upstream.once("response", (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndHeaders(answer.headers));
      answer.pipe(response);
      // A body cut short upstream is cut short for the client too, not ended as if complete.
      answer.once("close", () => {
        if (!answer.complete) response.destroy();
      });
    });
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (response.headersSent) response.destroy();
      else response.writeHead(502, reasonPhrase(`Could not reach ${url.host}: ${error.code ?? error.message}`), { "content-length": 0 }).end();
    });
    // The client went away (or the proxy closed): stop the upstream request too.
    response.once("close", () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  }

  /** `CONNECT host:port`: checked, then a byte tunnel to the checked address (TLS stays end to end). */
  private async tunnel(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    client.on("error", () => client.destroy());
    let url: URL | undefined;
    try {
      // Only `host:port` (authority form); `new URL` would also accept a path or user info, so compare back.
      const parsed = new URL(`https://${request.url ?? ""}`);
      if (parsed.host === (request.url ?? "").toLowerCase() || `${parsed.host}:443` === (request.url ?? "").toLowerCase()) url = parsed;
      // eslint-disable-next-line no-restricted-syntax -- a target that is not host:port leaves `url` unset: the 400 below answers it
    } catch {
      // not host:port
    }
    if (!url) {
      client.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      return;
    }
    const outcome = await this.checked(url.href);
    if ("status" in outcome) {
      client.end(`HTTP/1.1 ${outcome.status} ${outcome.reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    if (this.closed || client.destroyed) return;
    const { target } = outcome;
    const shownHost = url.host;
    const upstream = this.track(net.connect({ host: target.address, port: target.port, family: target.family }));
    let connected = false;
    upstream.once("connect", () => {
      connected = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (connected) client.destroy();
      else client.end(`HTTP/1.1 502 ${reasonPhrase(`Could not reach ${shownHost}: ${error.code ?? error.message}`)}\r\nConnection: close\r\n\r\n`);
    });
    client.once("close", () => upstream.destroy());
  }
}
