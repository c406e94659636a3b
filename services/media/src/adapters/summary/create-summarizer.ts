import { createOpenAiClient, type OpenAiClient, type OpenAiConfig } from "@study/ai";
import type { Summarizer } from "../../application/ports/summarizer.port";
import { ExtractiveSummarizer } from "./extractive-summarizer";
import { OpenAiSummarizer } from "./openai-summarizer";

/**
 * The summarizer the configuration asks for: the chat model OPENAI_MODEL (at OPENAI_BASE_URL when set) when
 * OPENAI_API_KEY is set; otherwise the offline extractive summarizer, so summaries work without an account.
 * Takes the @study/ai configuration fragment (`openAiConfigSchema`).
 */
export function createSummarizer(config: OpenAiConfig, dependencies: { openAiClient?: OpenAiClient } = {}): Summarizer {
  if (!config.OPENAI_API_KEY) return new ExtractiveSummarizer();
  const client =
    dependencies.openAiClient ??
    createOpenAiClient({
      apiKey: config.OPENAI_API_KEY,
      baseURL: config.OPENAI_BASE_URL,
      timeoutMs: config.OPENAI_TIMEOUT_MS,
      maxRetries: config.OPENAI_MAX_RETRIES,
    });
  return new OpenAiSummarizer({ client, model: config.OPENAI_MODEL });
}
