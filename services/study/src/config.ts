import { grpcPort, serviceConfigSchema } from "@study/runtime";
import { z } from "zod";
import { generationConfigSchema } from "./adapters/generation/create-generator";

/** Settings of the study service: the service's own plus the generator's (OPENAI_*; offline without a key). */
export const studyConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: grpcPort(50054),
  ...generationConfigSchema.shape,
});
export type StudyConfig = z.infer<typeof studyConfigSchema>;
