import { StudyApiError } from "@study/sdk";
import { describe, expect, it } from "vitest";
import { nextStepOf, sentenceOf } from "./errors";

describe("an API refusal shown to a person", () => {
  it("is the API's sentence, with each invalid field named", () => {
    const error = new StudyApiError(400, "VALIDATION_ERROR", "Invalid input.", [{ field: "name", message: "Required" }]);
    expect(sentenceOf(error)).toBe("Invalid input. name: Required.");
  });

  it("turns the action into the step it names, and a lost session into signing in", () => {
    expect(nextStepOf(new StudyApiError(403, "FORBIDDEN", "Verify your e-mail first.", [], "VERIFY_EMAIL"))).toEqual({
      label: "Verify your e-mail address",
      to: "/account",
    });
    expect(nextStepOf(new StudyApiError(401, "SESSION_EXPIRED", "Your session has expired."))?.to).toBe("/sign-in");
    expect(nextStepOf(new StudyApiError(404, "NOT_FOUND", "Course not found."))).toBeUndefined();
  });

  it("asks to wait when the API says to retry later", () => {
    expect(sentenceOf(new StudyApiError(429, "RATE_LIMITED", "Too many attempts.", [], "RETRY_LATER"))).toBe(
      "Too many attempts. Please wait a little and try again.",
    );
  });

  it("says something useful about failures that are not the API's", () => {
    expect(sentenceOf(StudyApiError.network(new TypeError("fetch failed")))).toMatch(/could not be reached/);
    expect(sentenceOf(new Error("boom"))).toBe("Something went wrong. Please try again.");
  });
});
