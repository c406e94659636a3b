import { callOpenAi, splitSentences, type OpenAiClient } from "@study/ai";
import { AppError } from "@study/platform/errors";
import type { Summarizer } from "../../application/ports/summarizer.port";
import { DEFAULT_SUMMARY_SENTENCES } from "./extractive-summarizer";

/** ~50 000 tokens: a three-hour lecture fits; anything longer is cut at a sentence to bound cost and context. */
const DEFAULT_MAX_INPUT_CHARACTERS = 200_000;

export interface OpenAiSummarizerOptions {
  client: OpenAiClient;
  model?: string;
  defaultMaxSentences?: number;
  maxInputCharacters?: number;
}

export function summarySystemPrompt(maxSentences: number): string {
  return [
    "You summarise lecture transcripts and study notes for a student who is revising the material.",
    `Write a concise study summary of at most ${maxSentences} sentences of plain prose: no title, no lists, no markdown, no preamble such as "This text is about".`,
    "Keep the key concepts, definitions, facts and conclusions, in the order the text presents them.",
    "Use only information from the text, and write in the text's language.",
    "Transcripts come from speech recognition and may contain misheard words; follow the evident meaning.",
  ].join(" ");
}

/** The text up to the last sentence that fits in `limit` characters. */
function truncateAtSentence(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  const sentences = splitSentences(head);
  // The last piece was cut mid-sentence unless the cut fell exactly on a sentence end.
  return (sentences.length > 1 ? sentences.slice(0, -1).join(" ") : head).trim();
}

/**
 * Summaries written by a chat model (OPENAI_MODEL, default gpt-4o-mini, or any model of a compatible
 * server) through the shared @study/ai client. The answer is checked: no choices, no text, a refusal or a
 * content-filter stop raise a clear AppError; a summary cut off by the length limit loses its unfinished sentence;
 * more sentences than asked are trimmed to the limit.
 */
export class OpenAiSummarizer implements Summarizer {
  readonly name: string;
  private readonly client: OpenAiClient;
  private readonly model: string;
  private readonly defaultMaxSentences: number;
  private readonly maxInputCharacters: number;

  constructor(options: OpenAiSummarizerOptions) {
    this.client = options.client;
    this.model = options.model ?? "gpt-4o-mini";
    this.defaultMaxSentences = options.defaultMaxSentences ?? DEFAULT_SUMMARY_SENTENCES;
    this.maxInputCharacters = options.maxInputCharacters ?? DEFAULT_MAX_INPUT_CHARACTERS;
    this.name = `openai:${this.model}`;
  }

  async summarize(text: string, options: { maxSentences?: number; signal?: AbortSignal } = {}): Promise<string> {
    const { signal } = options;
    signal?.throwIfAborted();
    const source = text.trim();
    if (!source) return "";
    const limit = Math.max(1, Math.floor(options.maxSentences ?? this.defaultMaxSentences));
    const completion: unknown = await callOpenAi(
      () =>
        this.client.chat.completions.create(
          {
            model: this.model,
            // Low temperature: a summary should restate the text, not vary from run to run.
            temperature: 0.2,
            messages: [
              { role: "system", content: summarySystemPrompt(limit) },
              { role: "user", content: `Summarise this text:\n\n${truncateAtSentence(source, this.maxInputCharacters)}` },
            ],
          },
          { signal },
        ),
      signal,
    );

    // Compatible servers vary; check the shape instead of trusting the SDK's types.
    type Choice = { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown };
    const choice = (completion as { choices?: Choice[] } | null)?.choices?.[0];
    const content = choice?.message?.content;
    if (!choice?.message || (content !== null && content !== undefined && typeof content !== "string")) {
      throw new AppError("unavailable", "AI_MALFORMED_RESPONSE", "The AI service's answer is not a chat completion (no message in choices[0])");
    }
    if (choice.finish_reason === "content_filter" || (typeof choice.message.refusal === "string" && choice.message.refusal)) {
      throw new AppError("precondition", "AI_REFUSED", "The AI service refused to summarise this text");
    }
    const answer = typeof content === "string" ? content.trim() : "";
    if (!answer) {
      throw new AppError("unavailable", "AI_EMPTY_RESPONSE", "The AI service returned an empty summary");
    }
    let sentences = splitSentences(answer);
    if (choice.finish_reason === "length" && sentences.length > 1 && !/[.!?…"”)]$/.test(sentences[sentences.length - 1])) {
      sentences = sentences.slice(0, -1);
    }
    return sentences.slice(0, limit).join(" ");
  }
}
