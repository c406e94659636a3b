/**
 * Turns texts into embedding vectors (semantic document search). One provider, one model: vectors of different
 * models are not comparable, so every stored vector records the model that made it.
 */
export interface EmbeddingProvider {
  /** The model's name, stored with each chunk's vector (e.g. "text-embedding-3-small"). */
  readonly model: string;
  /**
   * One vector per text, in the order given, all of the same length. Rejects with an AppError of kind "upstream"
   * when the provider fails, with `signal`'s reason when aborted.
   */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}
