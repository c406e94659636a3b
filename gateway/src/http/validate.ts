import { AppError, type FieldViolation } from "@study/platform";
import type { z } from "zod";

type Issue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  bigint: "an integer",
  date: "a date",
};

const FORMAT_NAMES: Record<string, string> = {
  email: "a valid e-mail address",
  url: "a valid URL",
  uuid: "a UUID",
  guid: "a UUID",
  datetime: "an ISO 8601 date-time",
  date: "an ISO 8601 date",
  time: "an ISO 8601 time",
};

const quoted = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

function bound(issue: Issue & { code: "too_small" | "too_big" }, word: "least" | "most"): string {
  const limit = String(issue.code === "too_small" ? issue.minimum : issue.maximum);
  if (issue.origin === "string") return `must be at ${word} ${limit} characters`;
  if (issue.origin === "array" || issue.origin === "set") return `must have at ${word} ${limit} entries`;
  if (issue.inclusive === false) return `must be ${word === "least" ? "greater" : "less"} than ${limit}`;
  return `must be at ${word} ${limit}`;
}

/**
 * The project's wording for an issue that the schema gave no message of its own (a message written in a schema
 * wins over this map), so every route words the same problem the same way instead of in zod's default English.
 */
export function projectMessage(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "too_small":
      if (issue.origin === "string" && Number(issue.minimum) === 1) return "must not be empty";
      return bound(issue, "least");
    case "too_big":
      return bound(issue, "most");
    case "invalid_format":
      if (issue.format === "regex") return "has an invalid format";
      if (issue.format === "starts_with" || issue.format === "ends_with" || issue.format === "includes") return "has an invalid format";
      return `must be ${FORMAT_NAMES[issue.format] ?? `a valid ${issue.format}`}`;
    case "invalid_value":
      return issue.values.length === 1 ? `must be ${quoted(issue.values[0])}` : `must be one of ${issue.values.map(quoted).join(", ")}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys":
      return "is not a known field";
    case "invalid_key":
    case "invalid_element":
    case "invalid_union":
    default:
      return "is invalid";
  }
}

/** Deeper than any input of this API nests (its deepest bodies nest three levels): refused before anything walks it. */
export const MAX_NESTING = 32;

/**
 * Whether arrays or objects nest deeper than MAX_NESTING. JSON.parse reads any depth; the checks after it (and
 * zod) walk values recursively, which a body of 100 000 nested brackets (well within the size limit) would
 * overflow the stack of: a 500 instead of a 400. Walked here without recursion.
 */
function nestsTooDeep(input: unknown): boolean {
  const pending: [unknown, number][] = [[input, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_NESTING) return true;
    for (const item of Object.values(value)) pending.push([item, depth + 1]);
  }
  return false;
}

/** PostgreSQL's text refuses NUL, and no field of this API has a use for it: refused for every field alike. */
export function nulCharacterViolations(input: unknown, what: string): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const visit = (value: unknown, path: string[]) => {
    const field = path.length > 0 ? path.join(".") : what;
    if (typeof value === "string") {
      if (value.includes("\u0000")) violations.push({ field, message: "must not contain a NUL character" });
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, [...path, String(index)]));
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes("\u0000"))
          violations.push({ field: [...path, key.replaceAll("\u0000", "\\u0000")].join("."), message: "must not contain a NUL character" });
        else visit(item, [...path, key]);
      }
    }
  };
  visit(input, []);
  return violations;
}

/**
 * Parses input with a schema; failures become 400 VALIDATION_ERROR with one {field, message} per field (the
 * first problem found: a value both out of range and unsafe is one mistake for the client, not two).
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown, what = "request"): z.infer<S> {
  if (nestsTooDeep(input)) {
    throw AppError.validation(`Invalid ${what}`, [{ field: what, message: `must not nest arrays or objects more than ${MAX_NESTING} deep` }]);
  }
  const nul = nulCharacterViolations(input, what);
  if (nul.length > 0) throw AppError.validation(`Invalid ${what}`, nul);
  const result = schema.safeParse(input, { error: (issue) => projectMessage(issue) });
  if (result.success) return result.data;
  const details: FieldViolation[] = result.error.issues.flatMap((issue) => {
    const at = issue.path.join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ field: at ? `${at}.${key}` : key, message: "is not a known field" }));
    }
    return [{ field: at || what, message: issue.message }];
  });
  const seen = new Set<string>();
  throw AppError.validation(
    `Invalid ${what}`,
    details.filter(({ field }) => !seen.has(field) && seen.add(field)),
  );
}
