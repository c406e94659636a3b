import { StudyApiError } from "@study/sdk";
import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { retryAfterOf, useRetryAfter } from "./retry-after";

const locked = (seconds: number) =>
  new StudyApiError(403, "ACCOUNT_LOCKED", "Too many failed sign-ins.", [{ field: "retryAfterSeconds", message: String(seconds) }], "RETRY_LATER");

describe("waiting as a refusal asks", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads retryAfterSeconds, and nothing from other errors", () => {
    expect(retryAfterOf(locked(3))).toBe(3);
    expect(retryAfterOf(new StudyApiError(401, "INVALID_CREDENTIALS", "Wrong e-mail or password."))).toBe(0);
    expect(retryAfterOf(new Error("x"))).toBe(0);
  });

  it("counts down to zero", () => {
    const { result } = renderHook(({ error }) => useRetryAfter(error), { initialProps: { error: locked(2) } });
    expect(result.current).toBe(2);
    act(() => {
      vi.advanceTimersByTime(1_000);
    });
    expect(result.current).toBe(1);
    act(() => {
      vi.advanceTimersByTime(1_250);
    });
    expect(result.current).toBe(0);
  });
});
