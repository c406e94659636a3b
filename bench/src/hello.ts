/** (a) The baseline: bare node:http hello world, in its own process like the gateway. Prints "listening <port>". */
import { createServer } from "node:http";

const body = JSON.stringify({ status: "ok", message: "hello world" });
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
