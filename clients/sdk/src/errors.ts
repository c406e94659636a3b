import type { components } from "./generated/api.js";

/** The API's error envelope: `{ success: false, error, code, details?, action? }`. */
export type ErrorEnvelope = components["schemas"]["Error"];

/** One invalid field of a VALIDATION_ERROR. */
export type FieldProblem = NonNullable<ErrorEnvelope["details"]>[number];

/**
 * A refused request, as the API explained it: `code` is stable (VALIDATION_ERROR, NOT_FOUND, …), `message` is a
 * sentence for people, `details` names invalid fields, `action` names the step that fixes it (VERIFY_EMAIL, …).
 * Failures without the envelope (a proxy's 502, a dropped connection) get code HTTP_<status> or NETWORK_ERROR.
 */
export class StudyApiError extends Error {
  override readonly name = "StudyApiError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
    readonly action?: string,
  ) {
    super(message);
  }

  /** The problem of one field, if the API named it. */
  fieldProblem(field: string): string | undefined {
    return this.details.find((detail) => detail.field === field)?.message;
  }

  static fromBody(status: number, body: unknown): StudyApiError {
    if (isEnvelope(body)) return new StudyApiError(status, body.code, body.error, body.details ?? [], body.action);
    return new StudyApiError(status, `HTTP_${status}`, `The server answered ${status}.`);
  }

  static async fromResponse(response: Response): Promise<StudyApiError> {
    const text = await response.text().catch(() => "");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return StudyApiError.fromBody(response.status, body);
  }

  static network(cause: unknown): StudyApiError {
    const error = new StudyApiError(0, "NETWORK_ERROR", "The server could not be reached. Check the connection and try again.");
    (error as { cause?: unknown }).cause = cause;
    return error;
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return (
    typeof body === "object" &&
    body !== null &&
    (body as { success?: unknown }).success === false &&
    typeof (body as { code?: unknown }).code === "string" &&
    typeof (body as { error?: unknown }).error === "string"
  );
}
