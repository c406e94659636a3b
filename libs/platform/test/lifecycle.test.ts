import { EventEmitter } from "node:events";
import { createLogger, Lifecycle } from "../src";

const logger = createLogger("lifecycle-test", "silent");
const never = () => new Promise<void>(() => undefined);

describe("Lifecycle", () => {
  it("closes in reverse order of registration", async () => {
    const closed: string[] = [];
    const lifecycle = new Lifecycle(logger);
    for (const name of ["database", "broker", "server"]) lifecycle.onStop(name, () => void closed.push(name));
    await lifecycle.stop();
    expect(closed).toEqual(["server", "broker", "database"]);
  });

  it("gives each closer its time limit, then goes on without it (a database or broker already gone)", async () => {
    const closed: string[] = [];
    const lifecycle = new Lifecycle(logger, { closeTimeoutMs: 50 });
    lifecycle.onStop("database", () => void closed.push("database"));
    lifecycle.onStop("broker", never);
    lifecycle.onStop("relay", never, { timeoutMs: 20 });
    lifecycle.onStop("failing", () => Promise.reject(new Error("boom")));
    const began = Date.now();
    await lifecycle.stop();
    expect(closed).toEqual(["database"]);
    const elapsed = Date.now() - began;
    expect(elapsed).toBeGreaterThanOrEqual(60);
    expect(elapsed).toBeLessThan(2_000);
  });

  it("runs the closers once however often stop() is called", async () => {
    let calls = 0;
    const lifecycle = new Lifecycle(logger);
    lifecycle.onStop("resource", () => void (calls += 1));
    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    await lifecycle.stop();
    expect(calls).toBe(1);
  });

  it("exits 0 after an orderly shutdown on the first signal, and at once with 1 on a second", async () => {
    const signals = new EventEmitter();
    const exits: number[] = [];
    let exited: () => void = () => undefined;
    const firstExit = new Promise<void>((resolve) => (exited = resolve));
    const lifecycle = new Lifecycle(logger, {
      signals,
      closeTimeoutMs: 60_000,
      exit: (code) => {
        exits.push(code);
        exited();
      },
    });
    let release: () => void = () => undefined;
    lifecycle.onStop("slow resource", () => new Promise<void>((resolve) => (release = resolve)));
    lifecycle.listenForSignals();

    signals.emit("SIGINT", "SIGINT");
    expect(exits).toEqual([]);
    signals.emit("SIGTERM", "SIGTERM");
    await firstExit;
    expect(exits).toEqual([1]);

    release();
    await lifecycle.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([1, 0]);
  });
});
