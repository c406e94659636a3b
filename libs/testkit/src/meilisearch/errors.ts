/** Meilisearch's error object: `{message, code, type, link}`, with the HTTP status its code has in Meilisearch. */

export type MeilisearchErrorType = "invalid_request" | "auth" | "internal" | "system";

export interface MeilisearchErrorBody {
  message: string;
  code: string;
  type: MeilisearchErrorType;
  link: string;
}

export class MeilisearchStandInError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: MeilisearchErrorType = "invalid_request",
  ) {
    super(message);
  }

  body(): MeilisearchErrorBody {
    return errorBody(this.code, this.message, this.type);
  }
}

export function errorBody(code: string, message: string, type: MeilisearchErrorType = "invalid_request"): MeilisearchErrorBody {
  return { message, code, type, link: `https://docs.meilisearch.com/errors#${code}` };
}

export const badRequest = (code: string, message: string) => new MeilisearchStandInError(400, code, message);

/** How deserr names a JSON value in its messages ("a string: `\"x\"`"). */
export function describeJson(value: unknown): string {
  const shown = JSON.stringify(value);
  if (value === null) return "null: `null`";
  if (Array.isArray(value)) return `an array: \`${shown}\``;
  switch (typeof value) {
    case "string":
      return `a string: \`${shown}\``;
    case "boolean":
      return `a boolean: \`${shown}\``;
    case "number":
      if (!Number.isInteger(value)) return `a number: \`${shown}\``;
      return value < 0 ? `a negative integer: \`${shown}\`` : `a positive integer: \`${shown}\``;
    case "object":
      return `an object: \`${shown}\``;
    default:
      return `\`${shown}\``;
  }
}

/** deserr's "Unknown field" error (`bad_request`), naming the accepted fields. */
export function unknownField(key: string, accepted: readonly string[], location = ""): MeilisearchStandInError {
  const where = location ? ` inside \`${location}\`` : "";
  return badRequest("bad_request", `Unknown field \`${key}\`${where}: expected one of ${accepted.map((name) => `\`${name}\``).join(", ")}`);
}

/** deserr's "Invalid value type" error under the field's own code. */
export function invalidType(code: string, path: string, expected: string, value: unknown): MeilisearchStandInError {
  return badRequest(code, `Invalid value type at \`${path}\`: expected ${expected}, but found ${describeJson(value)}`);
}
