import { randomInt } from "node:crypto";
import { mkdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * freePort() hands out ports below the kernel's ephemeral range (32768-60999 here), so an outgoing connection
 * never takes one between the hand-out and the bind, and reserves each one for a while with a file that only one
 * process can create, so two processes (jest workers, a test and the stack it spawns) never get the same port.
 */
const FIRST_PORT = 20_000;
const PORT_COUNT = 32_768 - FIRST_PORT;
/** Long enough for the process that asked to bind the port; after that, a bind check alone decides. */
const RESERVATION_MS = 120_000;
const RESERVATIONS = join(tmpdir(), "study-test-port-reservations");

// Kept on the process (not the module), so that a module registry reset (a new test file in the same jest
// worker) continues the walk instead of starting it over.
const cursorKey = Symbol.for("@study/testkit/ports.cursor");
type ProcessWithCursor = NodeJS.Process & { [cursorKey]?: number };

function nextCandidate(): number {
  const holder = process as ProcessWithCursor;
  const offset = holder[cursorKey] ?? randomInt(PORT_COUNT);
  holder[cursorKey] = (offset + 1) % PORT_COUNT;
  return FIRST_PORT + offset;
}

function reserve(port: number): boolean {
  mkdirSync(RESERVATIONS, { recursive: true });
  const file = join(RESERVATIONS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // Taken: an expired reservation is removed for a later call, not taken over now (two processes taking over
  // the same one could both believe they hold it).
  try {
    if (Date.now() - statSync(file).mtimeMs > RESERVATION_MS) unlinkSync(file);
    // eslint-disable-next-line no-restricted-syntax -- another process removed or renewed it meanwhile: the port stays skipped either way
  } catch {
    // see above
  }
  return false;
}

/** Whether nothing listens on the port on any address (a dual-stack wildcard bind fails if anything does). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ port }, () => server.close(() => resolve(true)));
  });
}

/** A TCP port nobody listens on, reserved for this caller (see above). */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < PORT_COUNT; tried++) {
    const port = nextCandidate();
    if ((await isFree(port)) && reserve(port)) return port;
  }
  throw new Error(`no free port between ${FIRST_PORT} and ${FIRST_PORT + PORT_COUNT - 1}`);
}

export function canConnect(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.connect(port, host);
  });
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${what} was not ready within ${timeoutMs} ms`);
}
