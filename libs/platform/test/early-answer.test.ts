import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { drainAfterEarlyAnswer } from "../src/early-answer";

const REFUSE_AFTER = 1024 * 1024;
const BODY = 48 * 1024 * 1024;

/** A server that refuses a body once it is over REFUSE_AFTER, answering 413 while the client is still sending. */
function refusingServer(options: { drain: boolean; lingerMs?: number; onAnswer?: () => void }): Promise<Server> {
  const server = createServer((request, response) => {
    let received = 0;
    request.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received <= REFUSE_AFTER || response.headersSent) return;
      if (options.drain) drainAfterEarlyAnswer(request, response, options.lingerMs);
      else request.resume();
      options.onAnswer?.();
      response.writeHead(413, { "content-type": "application/json" });
      response.end(JSON.stringify({ code: "FILE_TOO_LARGE" }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

interface Outcome {
  status: number | null;
  body: string;
  error: string | null;
  socketClosed: boolean;
}

/** Streams `bytes` with `Connection: close`, as a client without keep-alive does. */
function upload(server: Server, bytes: number): Promise<Outcome> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const outcome: Outcome = { status: null, body: "", error: null, socketClosed: false };
    const request = httpRequest({
      host: "127.0.0.1",
      port,
      method: "POST",
      agent: false,
      headers: { connection: "close", "transfer-encoding": "chunked" },
    });
    const chunk = Buffer.alloc(64 * 1024);
    let sent = 0;
    // Settled once both the socket and the request have closed: every response, data and error event the
    // exchange produces comes before the request's 'close'.
    let open = 2;
    const finish = () => {
      open -= 1;
      if (open === 0) setImmediate(() => resolve(outcome));
    };
    request.on("close", finish);
    request.on("response", (response) => {
      outcome.status = response.statusCode ?? null;
      response.setEncoding("utf8");
      response.on("data", (text: string) => (outcome.body += text));
    });
    request.on("error", (error: NodeJS.ErrnoException) => (outcome.error = error.code ?? error.message));
    request.on("socket", (socket) =>
      socket.on("close", () => {
        outcome.socketClosed = true;
        finish();
      }),
    );
    const pump = () => {
      while (!request.destroyed) {
        if (sent >= bytes) return void request.end();
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", pump);
      }
    };
    pump();
  });
}

describe("answering before the request body has ended", () => {
  let servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    servers = [];
  });

  it("lets a client that asked to close read the early 413 with no failed write, ten times in a row", async () => {
    const server = await refusingServer({ drain: true });
    servers.push(server);
    for (let attempt = 0; attempt < 10; attempt++) {
      const outcome = await upload(server, BODY);
      expect(outcome).toEqual({ status: 413, body: JSON.stringify({ code: "FILE_TOO_LARGE" }), error: null, socketClosed: true });
    }
  }, 60_000);

  it("without it, Node closes the connection under the sender: the client's write fails, which can take the answer with it", async () => {
    const server = await refusingServer({ drain: false });
    servers.push(server);
    for (let attempt = 0; attempt < 3; attempt++) {
      const outcome = await upload(server, BODY);
      expect(["EPIPE", "ECONNRESET"]).toContain(outcome.error);
    }
  }, 60_000);

  it("cuts a sender that does not stop after the linger time, the answer read first", async () => {
    const lingerMs = 400;
    // When the server answered (and its linger began): the client reads the answer later on a loaded machine.
    let answeredAt = 0;
    const server = await refusingServer({ drain: true, lingerMs, onAnswer: () => (answeredAt = Date.now()) });
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    // A raw socket: Node's own client would close by itself once answered; this one keeps sending.
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => (received += text));
    socket.on("error", () => undefined);
    socket.write("POST / HTTP/1.1\r\nhost: test\r\ntransfer-encoding: chunked\r\n\r\n");
    const chunk = Buffer.concat([Buffer.from("10000\r\n"), Buffer.alloc(0x10000), Buffer.from("\r\n")]);
    const pump = () => {
      while (!socket.destroyed) if (!socket.write(chunk)) return void socket.once("drain", pump);
    };
    pump();
    await new Promise((resolve) => socket.once("close", resolve));
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain(JSON.stringify({ code: "FILE_TOO_LARGE" }));
    // Not cut at once but after the linger. The margin: libuv times a timer from the event loop's clock, read when
    // the loop's iteration began, so on a loaded machine the timer may end a few milliseconds (CI: 8 ms) sooner
    // after the answer than Date.now() says.
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(lingerMs - 100);
  }, 30_000);
});
