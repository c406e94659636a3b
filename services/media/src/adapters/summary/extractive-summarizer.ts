import { contentWords, normalizedTermFrequencies, splitSentences } from "@study/ai";
import type { Summarizer } from "../../application/ports/summarizer.port";

export const DEFAULT_SUMMARY_SENTENCES = 5;
/** Unpunctuated stretches longer than this (raw speech-engine output) are cut into pseudo-sentences... */
const LONGEST_SENTENCE_WORDS = 40;
/** ...of at most this many words each. */
const PSEUDO_SENTENCE_WORDS = 25;
/** The opening sentences state the topic: the first one's score counts 30 % more, fading to nothing... */
const LEAD_BONUS = 0.3;
/** ...at this share of the text. */
const LEAD_SHARE = 0.2;
/** A candidate sharing more than this share of its content words with a chosen sentence repeats it. */
const REDUNDANT_OVERLAP = 0.7;

/** Sentences, with overlong unpunctuated ones cut into even pieces of whole words. */
function summaryUnits(text: string): string[] {
  return splitSentences(text).flatMap((sentence) => {
    const words = sentence.split(" ");
    if (words.length <= LONGEST_SENTENCE_WORDS) return [sentence];
    const pieces = Math.ceil(words.length / PSEUDO_SENTENCE_WORDS);
    const size = Math.ceil(words.length / pieces);
    return Array.from({ length: pieces }, (_, index) => words.slice(index * size, (index + 1) * size).join(" "));
  });
}

function overlap(candidate: Set<string>, chosen: Set<string>): number {
  if (candidate.size === 0) return 0;
  let shared = 0;
  for (const term of candidate) if (chosen.has(term)) shared += 1;
  return shared / candidate.size;
}

/**
 * Offline extractive summary: scores every sentence by how frequent its content words are in the whole
 * text (normalised term frequency summed over the sentence, divided by the square root of its length so
 * neither long nor one-word sentences win by size), adds a bonus for the opening sentences, skips
 * sentences that mostly repeat one already chosen, and returns the best N in their original order.
 * Deterministic: ties go to the earlier sentence.
 */
export class ExtractiveSummarizer implements Summarizer {
  readonly name = "extractive";
  private readonly defaultMaxSentences: number;

  constructor(options: { defaultMaxSentences?: number } = {}) {
    this.defaultMaxSentences = options.defaultMaxSentences ?? DEFAULT_SUMMARY_SENTENCES;
  }

  async summarize(text: string, options: { maxSentences?: number; signal?: AbortSignal } = {}): Promise<string> {
    options.signal?.throwIfAborted();
    const limit = Math.max(1, Math.floor(options.maxSentences ?? this.defaultMaxSentences));
    const sentences = summaryUnits(text);
    if (sentences.length <= limit) return sentences.join(" ");

    const termsBySentence = sentences.map((sentence) => contentWords(sentence));
    const frequency = normalizedTermFrequencies(termsBySentence.flat());
    const ranked = sentences
      .map((_, index) => {
        const terms = termsBySentence[index];
        const weight = terms.reduce((sum, term) => sum + (frequency.get(term) ?? 0), 0) / Math.sqrt(Math.max(terms.length, 1));
        const lead = 1 + LEAD_BONUS * Math.max(0, 1 - index / sentences.length / LEAD_SHARE);
        return { index, score: weight * lead, terms: new Set(terms) };
      })
      .sort((a, b) => b.score - a.score || a.index - b.index);

    const chosen: typeof ranked = [];
    for (const candidate of ranked) {
      if (chosen.length === limit) break;
      if (chosen.some((sentence) => overlap(candidate.terms, sentence.terms) > REDUNDANT_OVERLAP)) continue;
      chosen.push(candidate);
    }
    return chosen
      .sort((a, b) => a.index - b.index)
      .map((sentence) => sentences[sentence.index])
      .join(" ");
  }
}
