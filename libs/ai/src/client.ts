import OpenAI from "openai";
import type { OpenAiConfig } from "./config";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export interface OpenAiClientOptions {
  apiKey: string;
  /** An OpenAI-compatible server, e.g. `http://whisper.internal:8000/v1`; default api.openai.com. */
  baseURL?: string;
  /** Per request, before the SDK's retries. */
  timeoutMs?: number;
  maxRetries?: number;
}

export type OpenAiClient = OpenAI;

/**
 * fetch, with failures that are not `Error` instances turned into ones. The SDK recognises its own timeout
 * by the rejection's name "AbortError", but it rebuilds a non-Error rejection from its JSON form, which
 * drops the name: that happens when fetch's DOMException comes from another JavaScript realm (jest's test
 * sandbox), and a timeout would then be reported as a connection failure.
 */
const fetchWithErrorInstances: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, init);
  } catch (error) {
    if (error instanceof Error || typeof error !== "object" || error === null) throw error;
    const { name, message } = error as { name?: unknown; message?: unknown };
    const text = (value: unknown, fallback: string) => (typeof value === "string" ? value : fallback);
    throw Object.assign(new Error(text(message, "fetch failed"), { cause: error }), { name: text(name, "Error") });
  }
};

/**
 * The one way this system builds an OpenAI client. Every setting is passed explicitly, so the SDK never
 * falls back to reading OPENAI_BASE_URL and friends from the environment behind the configuration's back.
 */
export function createOpenAiClient(options: OpenAiClientOptions): OpenAiClient {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
    timeout: options.timeoutMs ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
    fetch: fetchWithErrorInstances,
  });
}

/** The client the shared OPENAI_* settings describe (openAiConfigSchema); null without OPENAI_API_KEY (offline). */
export function openAiClientFromConfig(config: OpenAiConfig): OpenAiClient | null {
  if (!config.OPENAI_API_KEY) return null;
  return createOpenAiClient({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL,
    timeoutMs: config.OPENAI_TIMEOUT_MS,
    maxRetries: config.OPENAI_MAX_RETRIES,
  });
}
