import { z } from "zod";

/** Query-string helpers: values arrive as strings. */
export const intParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^-?\d+$/, "must be an integer")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .optional()
    .transform((v) => v ?? fallback);

export const booleanParam = (fallback: boolean) =>
  z
    .enum(["true", "false"], { message: "must be true or false" })
    .optional()
    .transform((v) => (v === undefined ? fallback : v === "true"));

export const paginationSchema = z
  .object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int(), hasMore: z.boolean() })
  .meta({ id: "Pagination" });
