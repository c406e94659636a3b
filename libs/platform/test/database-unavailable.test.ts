/**
 * Which database failures are an outage (503, retry safe) and which stay internal errors: the shapes node-postgres,
 * pg-pool and Prisma's pg adapter give them (seen in the soak's PostgreSQL fault, #17).
 */
import { databaseUnavailable, isDatabaseUnavailable } from "@study/platform";

/** node-postgres's connect failure: a socket error. */
const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", errno: -111, syscall: "connect" });
/** node-postgres's DatabaseError as the server sends it. */
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "FATAL" });
/** Prisma's error around a driver adapter error (raw queries: P2010; mapped kinds: their own code). */
const prismaError = (code: string, cause: Record<string, unknown>) =>
  Object.assign(new Error(`prisma ${code}`), { code, meta: { driverAdapterError: Object.assign(new Error("DriverAdapterError"), { cause }) } });

describe("isDatabaseUnavailable", () => {
  it.each([
    ["a refused connection", refused],
    ["a refused connection wrapped as a cause", new Error("session lookup failed", { cause: refused })],
    ["the server starting up or recovering (57P03)", serverError("57P03", "the database system is starting up")],
    ["the server shutting down (57P01)", serverError("57P01", "terminating connection due to administrator command")],
    ["a crash shutdown (57P02)", serverError("57P02", "terminating connection because of crash of another server process")],
    ["a connection exception (08006)", serverError("08006", "connection failure")],
    ["no connection slot left (53300)", serverError("53300", "sorry, too many clients already")],
    ["pg-pool's connect timeout", new Error("timeout exceeded when trying to connect")],
    ["Prisma: server not reachable (P1001)", prismaError("P1001", { kind: "DatabaseNotReachable", host: "127.0.0.1", port: 5432 })],
    ["Prisma raw query: 57P03 inside", prismaError("P2010", { kind: "postgres", code: "57P03", originalCode: "57P03" })],
  ])("%s is an outage", (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ["a connection lost while a statement ran (it may have committed)", new Error("Connection terminated unexpectedly")],
    ["a reset connection (ECONNRESET)", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" })],
    ["Prisma: connection closed (P1017)", prismaError("P1017", { kind: "ConnectionClosed" })],
    ["a unique violation", serverError("23505", "duplicate key value violates unique constraint")],
    ["Prisma: unique violation", prismaError("P2002", { kind: "UniqueConstraintViolation" })],
    ["a plain bug", new TypeError("Cannot read properties of undefined")],
    ["not an error at all", "ECONNREFUSED"],
  ])("%s is not", (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it("follows causes without looping on a cycle", () => {
    const first = new Error("first") as Error & { cause?: unknown };
    const second = new Error("second", { cause: first });
    first.cause = second;
    expect(isDatabaseUnavailable(first)).toBe(false);
  });

  it("names the outage as SERVICE_UNAVAILABLE, kind unavailable (503), keeping the cause for the log", () => {
    const appError = databaseUnavailable(refused);
    expect([appError.kind, appError.code, appError.cause]).toEqual(["unavailable", "SERVICE_UNAVAILABLE", refused]);
  });
});
