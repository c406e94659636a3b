import { grpcPort, serviceConfigSchema } from "@study/runtime";
import { z } from "zod";
import { generationConfigSchema } from "./adapters/generation/create-generator";

/** Settings of the study service: the service's own plus the generator's (OPENAI_*; offline without a key). */
export const studyConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: grpcPort(50054),
  ...generationConfigSchema.shape,
  // What a generation reads, as the user.
  COURSES_GRPC_ADDRESS: z
    .string()
    .min(1, "is required")
    .describe("The courses service (`host:port`): a generation's course, its ownership and name."),
  MEDIA_GRPC_ADDRESS: z.string().min(1, "is required").describe("The media service (`host:port`): the notes material is generated from."),
  DOCUMENTS_GRPC_ADDRESS: z
    .string()
    .min(1, "is required")
    .describe("The documents service (`host:port`): the documents' text material is generated from."),
});
export type StudyConfig = z.infer<typeof studyConfigSchema>;
