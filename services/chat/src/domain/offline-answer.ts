import type { Citation, Passage } from "./passage";
import { placeOf } from "./passage";
import { contentWords, sentences } from "./words";

export interface OfflineAnswerSettings {
  /** At most this many passages are quoted. */
  maxPassages: number;
  /** A passage is quoted only when this share of the question's content words occur in it (0-1). */
  minOverlap: number;
  /** Longest quote, in characters. */
  maxQuoteChars: number;
}

export const DEFAULT_OFFLINE_SETTINGS: OfflineAnswerSettings = { maxPassages: 3, minOverlap: 0.34, maxQuoteChars: 320 };

export const NOTHING_FOUND = "Your notes and documents for this course don't seem to cover that. Try other words, or add the material that does.";

export interface OfflineAnswer {
  text: string;
  citations: Citation[];
}

/**
 * The offline engine does not write prose it cannot stand behind: it quotes the passages that best match the
 * question, each with its marker and place, introduced as quotes ("From your notes:"), or says that nothing matches.
 * The passages' words are only ever quoted, never followed: an instruction inside a document is just text here.
 */
export function offlineAnswer(
  question: string,
  passages: readonly Passage[],
  settings: OfflineAnswerSettings = DEFAULT_OFFLINE_SETTINGS,
): OfflineAnswer {
  const wanted = new Set(contentWords(question));
  if (wanted.size === 0) return { text: NOTHING_FOUND, citations: [] };
  const matching = passages
    .map((passage) => ({ passage, overlap: overlap(wanted, passage.text) }))
    .filter((candidate) => candidate.overlap >= settings.minOverlap)
    .sort((a, b) => b.overlap - a.overlap || b.passage.score - a.passage.score)
    .slice(0, settings.maxPassages);
  if (matching.length === 0) return { text: NOTHING_FOUND, citations: [] };
  const citations: Citation[] = matching.map(({ passage }, index) => ({
    marker: index + 1,
    type: passage.sourceType,
    id: passage.sourceId,
    title: passage.title,
    startTime: passage.startTime,
    page: passage.page,
    quote: quoteOf(passage.text, wanted, settings.maxQuoteChars),
  }));
  const fromDocuments = matching.every(({ passage }) => passage.sourceType === "document");
  const lines = citations.map((citation, index) => `[${citation.marker}] “${citation.quote}” (${placeOf(matching[index].passage)})`);
  return { text: `${fromDocuments ? "From your documents:" : "From your notes:"}\n\n${lines.join("\n\n")}`, citations };
}

/** The share of the wanted words that occur in the text. */
function overlap(wanted: ReadonlySet<string>, text: string): number {
  const present = new Set(contentWords(text));
  let found = 0;
  for (const word of wanted) if (present.has(word)) found += 1;
  return found / wanted.size;
}

/** The sentences of the passage that hold the most wanted words (in their order), within `maxChars`. */
export function quoteOf(text: string, wanted: ReadonlySet<string>, maxChars: number): string {
  const all = sentences(text);
  const ranked = all
    .map((sentence, index) => ({ sentence, index, hits: contentWords(sentence).filter((word) => wanted.has(word)).length }))
    .sort((a, b) => b.hits - a.hits || a.index - b.index);
  const chosen: typeof ranked = [];
  let length = 0;
  for (const candidate of ranked) {
    if (chosen.length > 0 && (candidate.hits === 0 || length + candidate.sentence.length + 1 > maxChars)) continue;
    chosen.push(candidate);
    length += candidate.sentence.length + 1;
  }
  const quote = chosen
    .sort((a, b) => a.index - b.index)
    .map((candidate) => candidate.sentence)
    .join(" ");
  return quote.length <= maxChars ? quote : `${quote.slice(0, maxChars - 1).replace(/\s+\S*$/u, "")}…`;
}
