import { z } from "zod";

/** `:id` path parameter of routes whose services answer NOT_FOUND for a malformed id themselves. */
export const idParams = z.object({ id: z.string().min(1).max(100) });
