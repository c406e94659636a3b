import { AppError, HTTP_STATUS_BY_KIND, isAppError, type ErrorKind } from "@study/platform";

describe("AppError", () => {
  it("carries kind, code, message, details and action", () => {
    const cause = new Error("low-level");
    const error = new AppError("precondition", "NOT_PENDING", "The job already finished", {
      details: [{ field: "jobId", message: "is finished" }],
      action: "Start a new job",
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: "AppError",
      kind: "precondition",
      code: "NOT_PENDING",
      message: "The job already finished",
      details: [{ field: "jobId", message: "is finished" }],
      action: "Start a new job",
    });
    expect(error.cause).toBe(cause);
    expect(isAppError(error)).toBe(true);
  });

  it("defaults to no details, no action and no cause", () => {
    const error = new AppError("conflict", "ALREADY_EXISTS", "exists");
    expect(error.details).toEqual([]);
    expect(error.action).toBeUndefined();
    expect("cause" in error).toBe(false);
  });

  it("has helpers for the common cases", () => {
    expect(AppError.validation("Invalid input", [{ field: "name", message: "must not be empty" }])).toMatchObject({
      kind: "validation",
      code: "VALIDATION_ERROR",
      message: "Invalid input",
      details: [{ field: "name", message: "must not be empty" }],
    });
    expect(AppError.validation("Invalid input").details).toEqual([]);
    expect(AppError.notFound("Course")).toMatchObject({ kind: "not_found", code: "NOT_FOUND", message: "Course not found" });
    expect(AppError.notFound("Session", "SESSION_NOT_FOUND")).toMatchObject({ kind: "not_found", code: "SESSION_NOT_FOUND" });
    expect(AppError.unauthenticated()).toMatchObject({ kind: "unauthenticated", code: "UNAUTHORIZED", message: "Authentication required" });
    expect(AppError.unauthenticated("Session expired", "SESSION_EXPIRED")).toMatchObject({ code: "SESSION_EXPIRED", message: "Session expired" });
    expect(AppError.internal()).toMatchObject({ kind: "internal", code: "INTERNAL_ERROR", message: "An unexpected error occurred" });
  });

  it("isAppError rejects anything else", () => {
    for (const value of [new Error("x"), { kind: "not_found", code: "NOT_FOUND", message: "x" }, "x", null, undefined]) {
      expect(isAppError(value)).toBe(false);
    }
  });
});

describe("HTTP_STATUS_BY_KIND", () => {
  it("maps every error kind to its HTTP status", () => {
    const expected: Record<ErrorKind, number> = {
      validation: 400,
      unauthenticated: 401,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      precondition: 400,
      too_large: 413,
      rate_limited: 429,
      unavailable: 503,
      upstream: 502,
      timeout: 504,
      internal: 500,
    };
    expect(HTTP_STATUS_BY_KIND).toEqual(expected);
  });
});
