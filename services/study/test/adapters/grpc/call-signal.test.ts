import { EventEmitter } from "node:events";
import type { AppError } from "@study/platform/errors";
import { callSignal } from "../../../src/adapters/grpc/study-grpc-service";

/** A server call as grpc-js gives it to a handler: an event emitter with the caller's deadline. */
function fakeCall(deadline: Date | number) {
  return Object.assign(new EventEmitter(), { getDeadline: () => deadline });
}

const reasonOf = (signal: AbortSignal) => ({ code: (signal.reason as AppError).code, kind: (signal.reason as AppError).kind });

describe("callSignal: when a generation stops", () => {
  it("aborts one second before the caller's deadline as UPSTREAM_TIMEOUT", async () => {
    const started = Date.now();
    const signal = callSignal(fakeCall(new Date(started + 1_300)));
    await new Promise((resolve) => signal.addEventListener("abort", resolve));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(reasonOf(signal)).toEqual({ code: "UPSTREAM_TIMEOUT", kind: "timeout" });
  });

  it("aborts at once as GENERATION_CANCELLED when the caller cancels", () => {
    const call = fakeCall(Infinity);
    const signal = callSignal(call);
    expect(signal.aborted).toBe(false);
    call.emit("cancelled");
    expect(reasonOf(signal)).toEqual({ code: "GENERATION_CANCELLED", kind: "timeout" });
  });

  it("does not abort by itself when the call has no deadline", () => {
    // Nothing but the call's own "cancelled" can abort it: no timer of any kind is set.
    const timeouts = jest.spyOn(AbortSignal, "timeout");
    const timers = jest.spyOn(global, "setTimeout");
    try {
      const signal = callSignal(fakeCall(Infinity));
      expect(timeouts).not.toHaveBeenCalled();
      expect(timers).not.toHaveBeenCalled();
      expect(signal.aborted).toBe(false);
    } finally {
      timeouts.mockRestore();
      timers.mockRestore();
    }
  });
});
