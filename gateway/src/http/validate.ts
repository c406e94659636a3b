import { AppError, type FieldViolation } from "@study/platform";
import type { z } from "zod";

/** Parses input with a schema; failures become 400 VALIDATION_ERROR with one {field, message} per problem. */
export function parse<S extends z.ZodType>(schema: S, input: unknown, what = "request"): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: FieldViolation[] = result.error.issues.flatMap((issue) => {
    const at = issue.path.join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ field: at ? `${at}.${key}` : key, message: "is not a known field" }));
    }
    return [{ field: at || what, message: issue.message }];
  });
  throw AppError.validation(`Invalid ${what}`, details);
}
