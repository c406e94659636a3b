import type { Logger } from "@study/platform";
import { AppError, isAppError } from "@study/platform/errors";
import { chunkPages, type ChunkingOptions, type DocumentChunkDraft, type PageText } from "../domain/chunking";
import { l2Normalize } from "../domain/vector";
import type { EmbeddingProvider } from "./ports/embedding-provider.port";

/** A document_chunk row to insert (with the document's id, user and course added by the repository). */
export interface ChunkRecord extends DocumentChunkDraft {
  /** L2-normalised (length 1), or null without an embedding provider. */
  embedding: number[] | null;
  /** The provider's model that made `embedding`; null with it. */
  embeddingModel: string | null;
}

/**
 * The chunks of a document's pages (domain/chunking), each with its embedding when a provider is configured.
 * The provider's failure (AppError kind "upstream") rejects: the caller decides whether the document fails or
 * is retried. Vectors are stored normalised so the search's cosine similarity is a dot product.
 */
export async function prepareChunks(
  pages: readonly PageText[],
  embeddings: EmbeddingProvider | null,
  signal?: AbortSignal,
  options?: ChunkingOptions,
): Promise<ChunkRecord[]> {
  const drafts = chunkPages(pages, options);
  if (!embeddings || drafts.length === 0) return drafts.map((draft) => ({ ...draft, embedding: null, embeddingModel: null }));
  const vectors = await embeddings.embed(
    drafts.map((draft) => draft.text),
    signal,
  );
  if (vectors.length !== drafts.length) {
    throw new AppError("upstream", "EMBEDDING_FAILED", `The embedding service returned ${vectors.length} vectors for ${drafts.length} passages`);
  }
  return drafts.map((draft, index) => {
    const embedding = l2Normalize(vectors[index]);
    if (!embedding) throw new AppError("upstream", "EMBEDDING_FAILED", "The embedding service returned an empty or invalid vector");
    return { ...draft, embedding, embeddingModel: embeddings.model };
  });
}

/**
 * prepareChunks, and when the embedding provider fails (kind "upstream"), the chunks without embeddings: the
 * document is still processed and found by keyword search (semantic search then says it ran as keyword for it)
 * rather than failing or waiting for the provider. Logged as a warning with the provider's reason.
 */
export async function prepareChunksOrKeywordOnly(
  pages: readonly PageText[],
  embeddings: EmbeddingProvider | null,
  logger: Pick<Logger, "warn">,
  signal?: AbortSignal,
): Promise<ChunkRecord[]> {
  try {
    return await prepareChunks(pages, embeddings, signal);
  } catch (error) {
    if (!isAppError(error) || error.kind !== "upstream") throw error;
    logger.warn({ err: error }, "embedding failed: the document's passages are stored for keyword search only");
    return prepareChunks(pages, null, signal);
  }
}
