import { StudyApiError } from "@study/sdk";

/** What a person should do about a refusal, by the API's `action` (spec: error envelope). */
export interface NextStep {
  label: string;
  /** In-app path (under the router's basename) the step leads to. */
  to: string;
}

const STEPS: Record<string, NextStep> = {
  SIGN_IN: { label: "Sign in again", to: "/sign-in" },
  VERIFY_EMAIL: { label: "Verify your e-mail address", to: "/account" },
  SUBSCRIBE: { label: "See plans", to: "/account" },
  LINK_GOOGLE_ACCOUNT: { label: "Link your Google account", to: "/account" },
  RELINK_GOOGLE_ACCOUNT: { label: "Link your Google account again", to: "/account" },
  CHECK_GOOGLE_PERMISSIONS: { label: "Check Google's permissions", to: "/account" },
};

/** The step an error's `action` names, or, for a session that ended, signing in again. */
export function nextStepOf(error: unknown): NextStep | undefined {
  if (!(error instanceof StudyApiError)) return undefined;
  if (error.action && STEPS[error.action]) return STEPS[error.action];
  if (error.status === 401) return STEPS.SIGN_IN;
  return undefined;
}

const RETRY_LATER = "Please wait a little and try again.";

/** An error as one sentence a person can act on. */
export function sentenceOf(error: unknown): string {
  if (error instanceof StudyApiError) {
    if (error.code === "VALIDATION_ERROR" && error.details.length > 0) {
      return `${error.message} ${error.details.map((detail) => `${detail.field}: ${detail.message}`).join("; ")}.`;
    }
    if (error.action === "RETRY_LATER" && !/try again/i.test(error.message)) return `${error.message} ${RETRY_LATER}`;
    return error.message;
  }
  if (error instanceof Error && error.name === "AbortError") return "Cancelled.";
  return "Something went wrong. Please try again.";
}
