import { emptyAsUnset } from "@study/platform";
import { z } from "zod";

/** An unset variable and an empty one (`OPENAI_API_KEY=` in a compose file) both mean "not configured". */

/**
 * Settings of the OpenAI-compatible endpoint, as a fragment for a process's configuration schema
 * (`baseConfigSchema.extend(openAiConfigSchema.shape)`). Without `OPENAI_API_KEY` the AI features fall back to
 * their offline generators; `OPENAI_BASE_URL` points the client at a self-hosted compatible server.
 */
export const openAiConfigSchema = z.object({
  OPENAI_API_KEY: z
    .preprocess(emptyAsUnset, z.string().min(1).optional())
    .describe(
      "Key of an OpenAI-compatible API, which the process's AI features then use; unset, each falls back: the media worker to pocketsphinx and an extractive summary, study and chat to their offline engines, documents to keyword search only.",
    ),
  OPENAI_BASE_URL: z
    .preprocess(emptyAsUnset, z.url({ protocol: /^https?$/, error: "must be an http(s):// URL" }).optional())
    .describe("A self-hosted OpenAI-compatible server; unset: OpenAI's API."),
  OPENAI_MODEL: z
    .preprocess(emptyAsUnset, z.string().min(1).default("gpt-4o-mini"))
    .describe("The chat-completions model (summaries, study material, chat answers)."),
  OPENAI_TIMEOUT_MS: z
    .preprocess(emptyAsUnset, z.coerce.number().int().positive().default(60_000))
    .describe("Per request; the SDK retries a timed-out request `OPENAI_MAX_RETRIES` times."),
  OPENAI_MAX_RETRIES: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(10).default(2))
    .describe("Retries of connection errors, timeouts, 408/409/429 and 5xx answers, with the SDK's backoff."),
});

export type OpenAiConfig = z.infer<typeof openAiConfigSchema>;
