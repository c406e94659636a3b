import { z } from "zod";

/** The largest value of a protobuf int32, the type of every number these parameters are forwarded in. */
export const MAX_INT32 = 2_147_483_647;

/**
 * Query-string helpers: values arrive as strings. An integer is at most MAX_INT32 whatever `max` says: a larger
 * one cannot be encoded into the gRPC request, so it is refused here (400) instead of failing there (500). The
 * regex already makes it an integer: no `.int()` after it, whose safe-integer check would add a second detail.
 */
export const intParam = (min: number, max: number, fallback: number) => {
  const upper = Math.min(max, MAX_INT32);
  return (
    z
      .string()
      .regex(/^-?\d+$/, "must be an integer")
      .transform(Number)
      .pipe(z.number().min(min, `must be at least ${min}`).max(upper, `must be at most ${upper}`))
      // Documented as what it is, an integer in a range (text on the wire, as OpenAPI's query parameters are), not
      // as any string of digits: clients, and tests that make valid requests from the document, see the range.
      .meta({ type: "integer", minimum: min, maximum: upper, pattern: undefined })
      .optional()
      .transform((v) => v ?? fallback)
  );
};

/**
 * A query parameter read as one string. A parameter given twice (`?limit=1&limit=2`, which Express reads as an
 * array) is refused rather than guessed at: which of the two a client meant is not ours to pick, and a proxy in
 * between may have picked the other one.
 */
export const singleParam = () => z.string({ error: (issue) => (Array.isArray(issue.input) ? "must be given once" : undefined) });

export const booleanParam = (fallback: boolean) =>
  z
    .enum(["true", "false"], { message: "must be true or false" })
    .optional()
    .transform((v) => (v === undefined ? fallback : v === "true"));
