import type { Citation, Passage } from "./passage";
import { placeOf } from "./passage";
import { contentWords, sentences } from "./words";

export interface OfflineAnswerSettings {
  /** At most this many passages are quoted. */
  maxPassages: number;
  /** A passage is quoted only when this share of the question's content words occur in it (0-1). */
  minOverlap: number;
  /**
   * …and when the words it holds weigh at least this share of the question's (0-1): a word found in few of the
   * retrieved passages weighs more than one found in most, so a passage that misses the question's one specific
   * word ("Staphylococcus" in a course that only mentions E. coli) does not pass for an answer.
   */
  minCover: number;
  /** Only passages whose weight is within this share of the best one's are quoted (0-1): the clear answers. */
  relativeToBest: number;
  /** Longest quote, in characters. */
  maxQuoteChars: number;
}

/** Chosen on the labelled set of bench/chat/ (see docs/PERFORMANCE.md, "Chat"). */
export const DEFAULT_OFFLINE_SETTINGS: OfflineAnswerSettings = {
  maxPassages: 3,
  minOverlap: 0.34,
  minCover: 0.35,
  relativeToBest: 0.8,
  maxQuoteChars: 320,
};

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
  /** For a follow-up: what the lecture says right after what the previous answer quoted, quoted first. */
  following: readonly Passage[] = [],
): OfflineAnswer {
  const wanted = [...new Set(contentWords(question))];
  if (wanted.length === 0) return { text: NOTHING_FOUND, citations: [] };
  const present = passages.map((passage) => new Set(contentWords(passage.text)));
  // Inverse document frequency over the retrieved passages: what sets a passage apart from the others.
  const weight = new Map(
    wanted.map((word) => [word, Math.log(1 + (passages.length + 1) / (present.filter((words) => words.has(word)).length + 0.5))]),
  );
  const totalWeight = wanted.reduce((sum, word) => sum + (weight.get(word) ?? 0), 0);
  const candidates = passages
    .map((passage, rank) => {
      const found = wanted.filter((word) => present[rank].has(word));
      return {
        passage,
        rank,
        overlap: found.length / wanted.length,
        cover: found.reduce((sum, word) => sum + (weight.get(word) ?? 0), 0) / totalWeight,
      };
    })
    .filter((candidate) => candidate.overlap >= settings.minOverlap && candidate.cover >= settings.minCover)
    .sort((a, b) => b.cover - a.cover || a.rank - b.rank);
  const bestCover = candidates.at(0)?.cover ?? 0;
  const continuing = following.map((passage) => ({ passage }));
  const matching = [
    ...continuing,
    ...candidates.filter((candidate) => candidate.cover >= settings.relativeToBest * bestCover && !following.includes(candidate.passage)),
  ].slice(0, settings.maxPassages);
  if (matching.length === 0) return { text: NOTHING_FOUND, citations: [] };
  const quoteWords = new Set(wanted);
  const citations: Citation[] = matching.map(({ passage }, index) => ({
    marker: index + 1,
    type: passage.sourceType,
    id: passage.sourceId,
    title: passage.title,
    startTime: passage.startTime,
    page: passage.page,
    quote: quoteOf(passage.text, quoteWords, settings.maxQuoteChars),
  }));
  const fromDocuments = matching.every(({ passage }) => passage.sourceType === "document");
  const lines = citations.map((citation, index) => `[${citation.marker}] “${citation.quote}” (${placeOf(matching[index].passage)})`);
  return { text: `${fromDocuments ? "From your documents:" : "From your notes:"}\n\n${lines.join("\n\n")}`, citations };
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
