import { port } from "@study/platform";
import { serviceConfigSchema } from "@study/runtime";
import type { z } from "zod";

/** Settings of the media service (the pipeline's settings join them in the worker). */
export const mediaConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: port(50053),
});
export type MediaConfig = z.infer<typeof mediaConfigSchema>;
