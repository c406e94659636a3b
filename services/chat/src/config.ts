import { openAiConfigSchema } from "@study/ai";
import { boundedInteger, port } from "@study/platform";
import { serviceConfigSchema } from "@study/runtime";
import { z } from "zod";

/**
 * Settings of the chat service. The answer engine follows the other AI features: the model OPENAI_MODEL (at
 * OPENAI_BASE_URL when set) when OPENAI_API_KEY is set, otherwise the offline engine that quotes the material.
 */
export const chatConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: port(50059),
  ...openAiConfigSchema.shape,
  /** Questions one user may ask per hour, across sessions (the spec recommends 50 AI requests per hour). */
  CHAT_QUESTIONS_PER_HOUR: boundedInteger(1, 100_000, 50),
  /** Passages retrieved for a question and given to the engine. */
  CHAT_PASSAGES: boundedInteger(1, 30, 8),
  /** Earlier messages of the session the engine sees (a follow-up question needs the previous turns). */
  CHAT_HISTORY_MESSAGES: boundedInteger(0, 50, 6),
  /** The services whose material chat reads: courses (names, ownership), media (notes), documents (text). */
  COURSES_GRPC_ADDRESS: z.string().min(1, "is required"),
  MEDIA_GRPC_ADDRESS: z.string().min(1, "is required"),
  DOCUMENTS_GRPC_ADDRESS: z.string().min(1, "is required"),
});
export type ChatConfig = z.infer<typeof chatConfigSchema>;
