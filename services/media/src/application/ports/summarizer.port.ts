/** Port: a short summary of a transcript (a few sentences, plain text). */
export interface Summarizer {
  readonly name: string;
  summarize(text: string, options?: { maxSentences?: number; signal?: AbortSignal }): Promise<string>;
}
