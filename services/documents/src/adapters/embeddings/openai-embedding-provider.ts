import { createOpenAiClient, fromOpenAiError, type OpenAiClient, type OpenAiConfig } from "@study/ai";
import { emptyAsUnset } from "@study/platform";
import { AppError } from "@study/platform/errors";
import { z } from "zod";
import type { EmbeddingProvider } from "../../application/ports/embedding-provider.port";

export const DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";
/** Inputs per request: well under OpenAI's 2 048, and ~64 000 characters of chunks (1 000 each) per call. */
export const DEFAULT_EMBEDDING_BATCH = 64;

/** The embedding settings, a fragment for the service's configuration schema beside `openAiConfigSchema`. */
export const embeddingConfigSchema = z.object({
  OPENAI_EMBEDDING_MODEL: z
    .preprocess(emptyAsUnset, z.string().min(1).default(DEFAULT_EMBEDDING_MODEL))
    .describe("The embedding model of semantic document search (with OPENAI_API_KEY)."),
  OPENAI_EMBEDDING_DIMENSIONS: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(3072).optional())
    .describe(
      "Shorter vectors (text-embedding-3 models only; unset: the model's own, 1 536 for -small): semantic search scans every vector of a course, so 512 makes it about three times cheaper for a small loss of quality.",
    ),
});

export type EmbeddingConfig = z.infer<typeof embeddingConfigSchema>;

export interface OpenAiEmbeddingProviderOptions {
  client: OpenAiClient;
  model?: string;
  /** Asked of the model (`dimensions`); undefined: its native length. */
  dimensions?: number;
  batchSize?: number;
}

/** What the provider's answer must look like (a compatible server may differ; the SDK's types are not checked). */
const embeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

const failure = (message: string, cause?: unknown) => new AppError("upstream", "EMBEDDING_FAILED", message, cause === undefined ? {} : { cause });

/**
 * Embeddings from OpenAI's `/v1/embeddings` (or a compatible server at OPENAI_BASE_URL) through the official SDK,
 * `batchSize` texts per request, in order. The SDK asks for base64 vectors and decodes them; the SDK's retries
 * (OPENAI_MAX_RETRIES) cover 429s, 5xx and timeouts. Any failure left is an AppError of kind "upstream" (502)
 * with code EMBEDDING_FAILED and the reason in the message; cancellation by `signal` rejects with its reason.
 */
export class OpenAiEmbeddingProvider implements EmbeddingProvider {
  readonly model: string;
  private readonly client: OpenAiClient;
  private readonly batchSize: number;
  private readonly dimensions?: number;

  constructor(options: OpenAiEmbeddingProviderOptions) {
    this.client = options.client;
    this.model = options.model ?? DEFAULT_EMBEDDING_MODEL;
    this.dimensions = options.dimensions;
    this.batchSize = Math.min(2048, Math.max(1, Math.floor(options.batchSize ?? DEFAULT_EMBEDDING_BATCH)));
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    signal?.throwIfAborted();
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      // OpenAI refuses an empty string input: a blank text is embedded as a single space.
      const batch = texts.slice(start, start + this.batchSize).map((text) => (text.trim() ? text : " "));
      vectors.push(...(await this.embedBatch(batch, signal)));
    }
    const dimensions = vectors[0]?.length;
    if (vectors.some((vector) => vector.length !== dimensions)) throw failure("The embedding service returned vectors of different lengths");
    return vectors;
  }

  private async embedBatch(input: string[], signal?: AbortSignal): Promise<number[][]> {
    let answer: unknown;
    try {
      const request = { model: this.model, input, ...(this.dimensions === undefined ? {} : { dimensions: this.dimensions }) };
      answer = await this.client.embeddings.create(request, { signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const mapped = fromOpenAiError(error);
      throw failure(`Embedding failed (${this.model}): ${mapped.message}`, error);
    }
    const parsed = embeddingsResponse.safeParse(answer);
    if (!parsed.success) throw failure("The embedding service's answer is not a list of embeddings");
    const byIndex = new Map(parsed.data.data.map((item) => [item.index, item.embedding]));
    return input.map((_, index) => {
      const vector = byIndex.get(index);
      if (!vector || vector.length === 0) throw failure(`The embedding service returned no embedding for input ${index}`);
      return vector;
    });
  }
}

/**
 * The embedding provider the configuration asks for: OPENAI_EMBEDDING_MODEL at OPENAI_BASE_URL (default OpenAI)
 * when OPENAI_API_KEY is set; null otherwise, and document search is then keyword only (and says so).
 */
export function createEmbeddingProvider(
  config: OpenAiConfig & EmbeddingConfig,
  dependencies: { openAiClient?: OpenAiClient; batchSize?: number } = {},
): EmbeddingProvider | null {
  if (!config.OPENAI_API_KEY) return null;
  const client =
    dependencies.openAiClient ??
    createOpenAiClient({
      apiKey: config.OPENAI_API_KEY,
      baseURL: config.OPENAI_BASE_URL,
      timeoutMs: config.OPENAI_TIMEOUT_MS,
      maxRetries: config.OPENAI_MAX_RETRIES,
    });
  return new OpenAiEmbeddingProvider({
    client,
    model: config.OPENAI_EMBEDDING_MODEL,
    dimensions: config.OPENAI_EMBEDDING_DIMENSIONS,
    batchSize: dependencies.batchSize,
  });
}
