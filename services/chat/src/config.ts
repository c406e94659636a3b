import { openAiConfigSchema } from "@study/ai";
import { baseConfigSchema, boundedInteger, postgresUrl } from "@study/platform";
import { grpcPort, serviceConfigSchema } from "@study/runtime";
import { z } from "zod";

/**
 * Settings of the chat service. The answer engine follows the other AI features: the model OPENAI_MODEL (at
 * OPENAI_BASE_URL when set) when OPENAI_API_KEY is set, otherwise the offline engine that quotes the material.
 */
export const chatConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: grpcPort(50059),
  ...openAiConfigSchema.shape,
  CHAT_QUESTIONS_PER_HOUR: boundedInteger(1, 100_000, 50).describe(
    "Questions one user may ask per hour, across sessions (the spec recommends 50 AI requests per hour).",
  ),
  CHAT_PASSAGES: boundedInteger(1, 30, 8).describe("Passages retrieved for a question and given to the engine."),
  CHAT_HISTORY_MESSAGES: boundedInteger(0, 50, 6).describe(
    "Earlier messages of the session the engine sees (a follow-up question needs the previous turns).",
  ),
  COURSES_GRPC_ADDRESS: z.string().min(1, "is required").describe("The courses service (`host:port`): course names and ownership."),
  MEDIA_GRPC_ADDRESS: z.string().min(1, "is required").describe("The media service (`host:port`): the notes chat answers from."),
  DOCUMENTS_GRPC_ADDRESS: z.string().min(1, "is required").describe("The documents service (`host:port`): the documents' text chat answers from."),
});
export type ChatConfig = z.infer<typeof chatConfigSchema>;

const grpcAddress = () => z.string().regex(/^[\w.-]+:\d+$/, "must be host:port");

/** The reindex command (src/reindex.ts): the database and the two owners of material; no broker. */
export const reindexConfigSchema = baseConfigSchema.extend({
  DATABASE_URL: postgresUrl(),
  MEDIA_GRPC_ADDRESS: grpcAddress().describe("The media service: the notes passages are made from."),
  DOCUMENTS_GRPC_ADDRESS: grpcAddress().describe("The documents service: the documents passages are made from."),
});
